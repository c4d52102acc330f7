/**
 * /templates: create, read, list, update, delete, publish, duplicate (reference B.4, C.5).
 * Thin: parse and validate the body, call the store, map the result to the Resend wire shape.
 * Paths take an id or an alias (`/templates/:idOrAlias`); aliases arrive raw (reference D.6).
 */
import type { Router } from 'express';
import type { z } from 'zod';
import {
  LIMITS,
  PetrelError,
  createTemplateSchema,
  formatIssuePath,
  notFound,
  updateTemplateSchema,
  validationError,
  type TemplateListItem,
  type TemplateRecord,
} from '@petrel/contracts';
import { parseAddress, parseTemplate, undeclaredVariables } from '@petrel/core';
import type { TemplateMeta, TemplateVersion, TemplatesStore } from '@petrel/store';
import { parsePageQuery } from './pagination.js';

/** Publishing re-checks after a concurrent edit at most this many times. */
const PUBLISH_ATTEMPTS = 5;

export function templateToWire(t: TemplateMeta, v: TemplateVersion): TemplateRecord {
  return {
    object: 'template',
    id: t.id,
    current_version_id: t.current_version_id,
    alias: t.alias,
    name: t.name,
    created_at: t.created_at,
    updated_at: t.updated_at,
    status: t.published_version_id ? 'published' : 'draft',
    published_at: t.published_at,
    from: v.from,
    subject: v.subject,
    reply_to: v.reply_to,
    html: v.html,
    text: v.text,
    variables: v.variables,
    has_unpublished_versions: t.current_version_id !== t.published_version_id,
  };
}

function listItem(t: TemplateMeta): TemplateListItem {
  return {
    id: t.id,
    name: t.name,
    status: t.published_version_id ? 'published' : 'draft',
    published_at: t.published_at,
    created_at: t.created_at,
    updated_at: t.updated_at,
    alias: t.alias,
  };
}

/** Parse a body with a template schema; the 422 message names each field as the client wrote it. */
function parseTemplateBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const input = body ?? {};
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  const message = res.error.issues
    .slice(0, 5)
    .map((iss) => {
      const path = iss.path.length > 0 ? formatIssuePath(iss.path) : 'body';
      return `${path}: ${valueAt(input, iss.path) === undefined && iss.path.length > 0 ? 'is required' : iss.message}`;
    })
    .join('; ');
  throw validationError(message);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[p];
  }
  return cur;
}

/** The template's from and reply_to must be addresses a send would accept. */
function checkAddresses(body: {
  from?: string | null | undefined;
  reply_to?: string[] | null | undefined;
}): void {
  if (body.from) {
    const parsed = parseAddress(body.from);
    if (!parsed.ok) throw validationError(`from: is not a valid address (${parsed.reason})`);
  }
  body.reply_to?.forEach((addr, i) => {
    const parsed = parseAddress(addr);
    if (!parsed.ok) throw validationError(`reply_to[${i}]: is not a valid address (${parsed.reason})`);
  });
}

const aliasTaken = (alias: string | null | undefined): PetrelError =>
  validationError(`alias: '${alias ?? ''}' is already used by another template`);

/** Registers the template routes on the authenticated router. */
export function templatesRoutes(store: TemplatesStore): (router: Router) => void {
  return (router) => {
    router
      .route('/templates')
      .post(async (req, res) => {
        const body = parseTemplateBody(createTemplateSchema, req.body);
        checkAddresses(body);
        const created = await store.create(res.locals.auth.teamId, {
          name: body.name,
          alias: body.alias ?? null,
          from: body.from ?? null,
          subject: body.subject ?? null,
          reply_to: body.reply_to ?? null,
          html: body.html,
          text: body.text ?? null,
          variables: body.variables ?? [],
        });
        if (!created.ok) throw aliasTaken(body.alias);
        res.status(201).json({ object: 'template', id: created.id });
      })
      .get(async (req, res) => {
        const page = parsePageQuery(req, LIMITS.paginationDefault);
        const result = await store.list(res.locals.auth.teamId, page);
        if (!result) throw validationError(`${page.after ? 'after' : 'before'}: no such template`);
        res.json({ object: 'list', has_more: result.hasMore, data: result.items.map(listItem) });
      });

    router
      .route('/templates/:idOrAlias')
      .get(async (req, res) => {
        const found = await store.get(res.locals.auth.teamId, req.params.idOrAlias!);
        if (!found) throw notFound('Template');
        res.json(templateToWire(found.template, found.version));
      })
      .patch(async (req, res) => {
        const body = parseTemplateBody(updateTemplateSchema, req.body);
        checkAddresses(body);
        const updated = await store.update(res.locals.auth.teamId, req.params.idOrAlias!, body);
        if (!updated.ok) throw updated.reason === 'not_found' ? notFound('Template') : aliasTaken(body.alias);
        res.json({ object: 'template', id: updated.id });
      })
      .delete(async (req, res) => {
        const id = await store.remove(res.locals.auth.teamId, req.params.idOrAlias!);
        if (!id) throw notFound('Template');
        res.json({ object: 'template', id, deleted: true });
      });

    router.route('/templates/:idOrAlias/publish').post(async (req, res) => {
      const teamId = res.locals.auth.teamId;
      for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
        const found = await store.get(teamId, req.params.idOrAlias!);
        if (!found) throw notFound('Template');
        const { template, version } = found;
        const parts = [version.subject, version.html, version.text].map((s) =>
          s === null ? undefined : parseTemplate(s),
        );
        const undeclared = undeclaredVariables(parts, version.variables);
        if (undeclared.length > 0) {
          throw validationError(
            `variables: the template uses ${undeclared.join(', ')} without declaring ${undeclared.length > 1 ? 'them' : 'it'}; declare every variable before publishing`,
          );
        }
        const published = await store.publish(teamId, template.id, template.current_version_id);
        if (published.ok) {
          res.json({ object: 'template', id: template.id });
          return;
        }
        if (published.reason === 'not_found') throw notFound('Template');
      }
      throw new PetrelError('conflict', 'The template is being edited concurrently; retry the publish');
    });

    router.route('/templates/:idOrAlias/duplicate').post(async (req, res) => {
      const id = await store.duplicate(res.locals.auth.teamId, req.params.idOrAlias!);
      if (!id) throw notFound('Template');
      res.json({ object: 'template', id });
    });
  };
}

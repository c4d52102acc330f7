/**
 * /templates: create, read, list, update, delete, publish, duplicate.
 * Thin: parse the body with the wire schema, call a use-case (or a store read), map the result to
 * the Resend wire shape.
 * Paths take an id or an alias (`/templates/:idOrAlias`); aliases arrive raw, as the client wrote them.
 */
import type { Request, RequestHandler } from 'express';
import {
  createTemplateSchema,
  notFound,
  updateTemplateSchema,
  type TemplateListItem,
  type TemplateRecord,
} from '@petrel/contracts';
import { createTemplate, duplicateTemplate, publishTemplate, updateTemplate } from '@petrel/core';
import type { TemplateMeta, TemplateVersion, TemplatesStore } from '@petrel/store';
import { createHandler, parseBody } from './parse-body.js';
import { listHandler } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

function templateToWire(t: TemplateMeta, v: TemplateVersion): TemplateRecord {
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

/** The template routes (all full access; the app's access check applies). */
export function templatesRoutes(store: TemplatesStore): RouteSpec[] {
  const ports = { templates: store };
  const idOrAlias = (req: Request): string => pathParam(req, 'idOrAlias');

  const create = createHandler(createTemplateSchema, 'template', (args) => createTemplate(args, ports));

  const list = listHandler('template', (t, p) => store.list(t, p), listItem);

  const get: RequestHandler = async (req, res) => {
    const found = await store.get(res.locals.auth.teamId, idOrAlias(req));
    if (!found) throw notFound('Template');
    res.json(templateToWire(found.template, found.version));
  };

  const update: RequestHandler = async (req, res) => {
    const patch = parseBody(updateTemplateSchema, req.body);
    const teamId = res.locals.auth.teamId;
    const { id } = await updateTemplate({ teamId, idOrAlias: idOrAlias(req), patch }, ports);
    res.json({ object: 'template', id });
  };

  const remove: RequestHandler = async (req, res) => {
    const id = await store.remove(res.locals.auth.teamId, idOrAlias(req));
    if (!id) throw notFound('Template');
    res.json({ object: 'template', id, deleted: true });
  };

  const publish: RequestHandler = async (req, res) => {
    const { id } = await publishTemplate(
      { teamId: res.locals.auth.teamId, idOrAlias: idOrAlias(req) },
      ports,
    );
    res.json({ object: 'template', id });
  };

  const duplicate: RequestHandler = async (req, res) => {
    const { id } = await duplicateTemplate(
      { teamId: res.locals.auth.teamId, idOrAlias: idOrAlias(req) },
      ports,
    );
    res.json({ object: 'template', id });
  };

  return [
    { path: '/templates', methods: { post: create, get: list } },
    { path: '/templates/:idOrAlias', methods: { get, patch: update, delete: remove } },
    { path: '/templates/:idOrAlias/publish', methods: { post: publish } },
    { path: '/templates/:idOrAlias/duplicate', methods: { post: duplicate } },
  ];
}

/**
 * /templates: create, read, list, update, delete, publish, duplicate.
 * Thin: parse the body with the wire schema, call a use-case (or a store read), map the result to
 * the Resend wire shape.
 * Paths take an id or an alias (`/templates/:idOrAlias`); aliases arrive raw, as the client wrote them.
 */
import type { Request } from 'express';
import {
  createTemplateSchema,
  notFound,
  updateTemplateSchema,
  type TemplateListItem,
  type TemplateRecord,
} from '@petrel/contracts';
import { createTemplate, duplicateTemplate, publishTemplate, updateTemplate } from '@petrel/core';
import type { TemplateMeta, TemplateVersion, TemplatesStore } from '@petrel/store';
import { actionHandler, createHandler, deleteHandler, getHandler, parseBody } from './parse-body.js';
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

  const get = getHandler(
    'Template',
    (teamId, req) => store.get(teamId, idOrAlias(req)),
    (found) => templateToWire(found.template, found.version),
  );

  const update = actionHandler('template', (teamId, req) =>
    updateTemplate(
      { teamId, idOrAlias: idOrAlias(req), patch: parseBody(updateTemplateSchema, req.body) },
      ports,
    ),
  );

  const remove = deleteHandler('template', async (teamId, req) => {
    const id = await store.remove(teamId, idOrAlias(req));
    if (!id) throw notFound('Template');
    return { id };
  });

  const publish = actionHandler('template', (teamId, req) =>
    publishTemplate({ teamId, idOrAlias: idOrAlias(req) }, ports),
  );

  const duplicate = actionHandler('template', (teamId, req) =>
    duplicateTemplate({ teamId, idOrAlias: idOrAlias(req) }, ports),
  );

  return [
    { path: '/templates', methods: { post: create, get: list } },
    { path: '/templates/:idOrAlias', methods: { get, patch: update, delete: remove } },
    { path: '/templates/:idOrAlias/publish', methods: { post: publish } },
    { path: '/templates/:idOrAlias/duplicate', methods: { post: duplicate } },
  ];
}

/**
 * /suppressions: the team's suppression list (Resend's suppressions API): add one or a batch,
 * list (optionally by origin), read, remove one or a batch. Thin: parse, call a use-case (or a
 * store read), map to the wire shape.
 *
 * `/suppressions/:idOrEmail` takes an id or an address; the SDK percent-encodes it
 * (`encodeURIComponent`) and Express decodes path parameters, so `a%2Bb%40x.test` and the raw
 * `a+b@x.test` both arrive as `a+b@x.test`. The fixed `/suppressions/batch/*` paths are mounted
 * before it (route-table.ts).
 */
import type { Request, RequestHandler } from 'express';
import {
  LIMITS,
  SUPPRESSION_ORIGINS,
  notFound,
  validationError,
  type SuppressionOrigin,
  type SuppressionRecord,
} from '@petrel/contracts';
import {
  addSuppression,
  addSuppressionSchema,
  addSuppressions,
  addSuppressionsSchema,
  removeSuppression,
  removeSuppressions,
  removeSuppressionsSchema,
} from '@petrel/core';
import type { SuppressionsStore } from '@petrel/store';
import { createHandler, parseBody } from './parse-body.js';
import { listBody, parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

function listItem(s: SuppressionRecord) {
  return { id: s.id, email: s.email, origin: s.origin, source_id: s.source_id, created_at: s.created_at };
}

/** `?origin=`: absent, or one of bounce | complaint | manual (else 422). */
function parseOrigin(req: Request): SuppressionOrigin | undefined {
  const origin = (req.query as Record<string, unknown>).origin;
  if (origin === undefined) return undefined;
  if (typeof origin === 'string' && (SUPPRESSION_ORIGINS as readonly string[]).includes(origin)) {
    return origin as SuppressionOrigin;
  }
  throw validationError(`origin: must be one of ${SUPPRESSION_ORIGINS.map((o) => `'${o}'`).join(', ')}`);
}

/** The suppression routes (full access; the app's access check applies). */
export function suppressionsRoutes(store: SuppressionsStore): RouteSpec[] {
  const ports = { suppressions: store };
  const idOrEmail = (req: Request): string => pathParam(req, 'idOrEmail');

  const add = createHandler(addSuppressionSchema, 'suppression', (args) => addSuppression(args, ports));

  const list: RequestHandler = async (req, res) => {
    const origin = parseOrigin(req);
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const result = await store.list(res.locals.auth.teamId, page, origin);
    res.json(listBody(result, page, 'suppression', listItem));
  };

  const get: RequestHandler = async (req, res) => {
    const found = await store.get(res.locals.auth.teamId, idOrEmail(req));
    if (!found) throw notFound('Suppression');
    res.json({ object: 'suppression', ...listItem(found) });
  };

  const remove: RequestHandler = async (req, res) => {
    const { id } = await removeSuppression(
      { teamId: res.locals.auth.teamId, idOrEmail: idOrEmail(req) },
      ports,
    );
    res.json({ object: 'suppression', id, deleted: true });
  };

  const batchAdd: RequestHandler = async (req, res) => {
    const input = parseBody(addSuppressionsSchema, req.body);
    const { ids } = await addSuppressions({ teamId: res.locals.auth.teamId, input }, ports);
    res.status(201).json({ data: ids.map((id) => ({ object: 'suppression', id })) });
  };

  const batchRemove: RequestHandler = async (req, res) => {
    const input = parseBody(removeSuppressionsSchema, req.body);
    const removed = await removeSuppressions({ teamId: res.locals.auth.teamId, input }, ports);
    res.json({ data: removed.map((r) => ({ object: 'suppression', id: r.id, deleted: r.deleted })) });
  };

  return [
    { path: '/suppressions', methods: { post: add, get: list } },
    { path: '/suppressions/batch/add', methods: { post: batchAdd } },
    { path: '/suppressions/batch/remove', methods: { post: batchRemove } },
    { path: '/suppressions/:idOrEmail', methods: { get, delete: remove } },
  ];
}

/** /api-keys: create, list, rename, revoke (reference B.13). */
import { Router } from 'express';
import { z } from 'zod';
import { LIMITS, notFound } from '@petrel/contracts';
import type { ApiKeysStore } from '@petrel/store';
import { parseBody } from './parse-body.js';
import { pageArray, parsePageQuery } from './pagination.js';

const createSchema = z.strictObject({
  name: z.string().trim().min(1).max(LIMITS.apiKeyNameLength),
  permission: z.enum(['full_access', 'sending_access']).optional(),
  domain_id: z.string().min(1).max(256).nullable().optional(),
});
const updateSchema = z.strictObject({ name: z.string().trim().min(1).max(LIMITS.apiKeyNameLength) });

export function apiKeysRoutes(router: Router, store: ApiKeysStore): void {
  router
    .route('/api-keys')
    .post(async (req, res) => {
      const body = parseBody(createSchema, req.body);
      const key = await store.create(res.locals.auth.teamId, {
        name: body.name,
        permission: body.permission ?? 'full_access',
        domain_id: body.domain_id ?? null,
      });
      res.status(201).json({ object: 'api_key', id: key.id, token: key.token });
    })
    .get(async (req, res) => {
      const page = parsePageQuery(req, LIMITS.paginationMax);
      const keys = await store.list(res.locals.auth.teamId);
      const { data, has_more } = pageArray(
        keys.map((k) => ({
          id: k.id,
          name: k.name,
          permission: k.permission,
          created_at: k.created_at,
          last_used_at: k.last_used_at,
        })),
        page,
      );
      res.json({ object: 'list', has_more, data });
    });

  router
    .route('/api-keys/:id')
    .get(async (req, res) => {
      const key = await store.get(res.locals.auth.teamId, req.params.id!);
      if (!key) throw notFound('API key');
      res.json({ object: 'api_key', ...key });
    })
    .patch(async (req, res) => {
      const body = parseBody(updateSchema, req.body);
      if (!(await store.rename(res.locals.auth.teamId, req.params.id!, body.name))) throw notFound('API key');
      res.json({ object: 'api_key', id: req.params.id });
    })
    .delete(async (req, res) => {
      if (!(await store.revoke(res.locals.auth.teamId, req.params.id!))) throw notFound('API key');
      res.json({ object: 'api_key', id: req.params.id, deleted: true });
    });
}

/** /api-keys: create, list, rename, revoke. */
import { z } from 'zod';
import { LIMITS, apiKeyPermissionSchema, fieldMessage, notFound, validationError } from '@petrel/contracts';
import type { ApiKeysStore } from '@petrel/store';
import { parseBody } from './parse-body.js';
import { pageArray, parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

const createSchema = z.strictObject({
  name: z.string().trim().min(1).max(LIMITS.apiKeyNameLength),
  permission: apiKeyPermissionSchema.optional(),
  domain_id: z.string().min(1).max(256).nullable().optional(),
});
const updateSchema = z.strictObject({ name: z.string().trim().min(1).max(LIMITS.apiKeyNameLength) });

/** The team's domains, as POST /api-keys checks `domain_id` against them. */
export interface DomainLookup {
  get(teamId: string, domainId: string): Promise<{ id: string } | null>;
}

export function apiKeysRoutes(store: ApiKeysStore, domains?: DomainLookup): RouteSpec[] {
  const collection: RouteSpec = {
    path: '/api-keys',
    methods: {
      post: async (req, res) => {
        const body = parseBody(createSchema, req.body);
        const teamId = res.locals.auth.teamId;
        // A sending key restricted to a domain sends from it only: the domain must be the team's.
        const domain = body.domain_id && domains ? await domains.get(teamId, body.domain_id) : undefined;
        if (domain === null)
          throw validationError(fieldMessage(['domain_id'], 'no domain with this id exists'));
        const key = await store.create(teamId, {
          name: body.name,
          permission: body.permission ?? 'full_access',
          domain_id: domain?.id ?? body.domain_id ?? null,
        });
        res.status(201).json({ object: 'api_key', id: key.id, token: key.token });
      },
      get: async (req, res) => {
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
      },
    },
  };
  const item: RouteSpec = {
    path: '/api-keys/:id',
    methods: {
      get: async (req, res) => {
        const key = await store.get(res.locals.auth.teamId, pathParam(req, 'id'));
        if (!key) throw notFound('API key');
        res.json({ object: 'api_key', ...key });
      },
      patch: async (req, res) => {
        const body = parseBody(updateSchema, req.body);
        if (!(await store.rename(res.locals.auth.teamId, pathParam(req, 'id'), body.name)))
          throw notFound('API key');
        res.json({ object: 'api_key', id: req.params.id });
      },
      delete: async (req, res) => {
        if (!(await store.revoke(res.locals.auth.teamId, pathParam(req, 'id')))) throw notFound('API key');
        res.json({ object: 'api_key', id: req.params.id, deleted: true });
      },
    },
  };
  return [collection, item];
}

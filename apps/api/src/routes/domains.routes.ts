/**
 * /domains: create, list, read, update, delete and verify (Resend's domains API). Thin: parse
 * the body with the wire schema, call a use-case (or a store read), map to the wire shape.
 * Verification answers once the records have been looked up (bounded by the DNS timeouts), so
 * the domain read right after shows the result. Lists return every domain when `limit` is
 * omitted (Resend's older list endpoints), up to UNPAGED_LIST_MAX.
 */
import type { Request, RequestHandler } from 'express';
import {
  createDomain,
  createDomainSchema,
  deleteDomain,
  domainListItem,
  domainView,
  getDomain,
  updateDomain,
  updateDomainSchema,
  verifyDomain,
  type DkimSettings,
  type DnsPort,
  type DomainDnsTargets,
} from '@petrel/core';
import type { DomainsStore } from '@petrel/store';
import { actionHandler, deleteHandler, parseBody } from './parse-body.js';
import { UNPAGED_LIST_MAX, listHandler } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface DomainsRouteDeps {
  domains: DomainsStore;
  dns: DnsPort;
  targets: DomainDnsTargets;
  dkim: DkimSettings;
  clock: { now(): number };
}

/** The domain routes (full access; the app's access check applies). */
export function domainsRoutes(deps: DomainsRouteDeps): RouteSpec[] {
  const ctx = { domains: deps.domains, targets: deps.targets, clock: deps.clock };
  const domainId = (req: Request): string => pathParam(req, 'id');

  const create: RequestHandler = async (req, res) => {
    const input = parseBody(createDomainSchema, req.body);
    const domain = await createDomain({ teamId: res.locals.auth.teamId, input }, { ...ctx, dkim: deps.dkim });
    const { object: _object, ...view } = domainView(domain, deps.targets);
    res.status(201).json(view);
  };

  const list = listHandler('domain', (t, p) => deps.domains.list(t, p), domainListItem, UNPAGED_LIST_MAX);

  const get: RequestHandler = async (req, res) => {
    const domain = await getDomain(res.locals.auth.teamId, domainId(req), deps.domains);
    res.json(domainView(domain, deps.targets));
  };

  const update = actionHandler('domain', (teamId, req) =>
    updateDomain({ teamId, domainId: domainId(req), patch: parseBody(updateDomainSchema, req.body) }, ctx),
  );

  const remove = deleteHandler('domain', (teamId, req) =>
    deleteDomain({ teamId, domainId: domainId(req) }, ctx),
  );

  const verify = actionHandler('domain', (teamId, req) =>
    verifyDomain({ teamId, domainId: domainId(req) }, { ...ctx, dns: deps.dns }),
  );

  return [
    { path: '/domains', methods: { post: create, get: list } },
    { path: '/domains/:id', methods: { get, patch: update, delete: remove } },
    { path: '/domains/:id/verify', methods: { post: verify } },
  ];
}

/**
 * Domain claims (Resend's `domains.claims.*`): POST /domains/claim (the create-domain body: 201,
 * or 200 with the team's open claim of that name), GET /domains/:id/claim and
 * POST /domains/:id/claim/verify, `:id` being the placeholder domain the claim created. Thin: the
 * body is parsed with the domains' wire schema, the rules are core's (domain-claims/).
 * Verification answers once the TXT record has been looked up and the claim moved as far as it
 * may (bounded by the DNS timeouts), so the claim read right after shows the result.
 */
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import {
  createDomainClaim,
  createDomainSchema,
  getDomainClaim,
  newId,
  verifyDomainClaim,
  type DkimSettings,
  type DnsPort,
  type DomainClaimContext,
  type DomainClaimPolicy,
  type DomainDnsTargets,
} from '@petrel/core';
import type { DomainClaimsStore, DomainsStore } from '@petrel/store';
import { parseBody } from './parse-body.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface DomainClaimsRouteDeps {
  domains: DomainsStore;
  claims: DomainClaimsStore;
  dns: DnsPort;
  targets: DomainDnsTargets;
  dkim: DkimSettings;
  policy: DomainClaimPolicy;
  clock: { now(): number };
}

export function domainClaimsRoutes(deps: DomainClaimsRouteDeps): RouteSpec[] {
  const ctx: DomainClaimContext = {
    ...deps,
    ids: { newId: () => newId(deps.clock.now()), token: () => randomBytes(16).toString('hex') },
  };
  const domainId = (req: Request): string => pathParam(req, 'id');

  const create: RequestHandler = async (req, res) => {
    const input = parseBody(createDomainSchema, req.body);
    const { created, claim } = await createDomainClaim({ teamId: res.locals.auth.teamId, input }, ctx);
    res.status(created ? 201 : 200).json(claim);
  };

  const get: RequestHandler = async (req, res) => {
    res.json(await getDomainClaim({ teamId: res.locals.auth.teamId, domainId: domainId(req) }, ctx));
  };

  const verify: RequestHandler = async (req, res) => {
    res.json(await verifyDomainClaim({ teamId: res.locals.auth.teamId, domainId: domainId(req) }, ctx));
  };

  return [
    { path: '/domains/claim', methods: { post: create } },
    { path: '/domains/:id/claim', methods: { get } },
    { path: '/domains/:id/claim/verify', methods: { post: verify } },
  ];
}

/** The claim policy of the configuration (seconds → ms). */
export function domainClaimPolicy(config: {
  DOMAIN_CLAIM_GRACE_S: number;
  DOMAIN_CLAIM_ACTIVITY_WINDOW_S: number;
  DOMAIN_CLAIM_TTL_S: number;
}): DomainClaimPolicy {
  return {
    graceMs: config.DOMAIN_CLAIM_GRACE_S * 1000,
    activityWindowMs: config.DOMAIN_CLAIM_ACTIVITY_WINDOW_S * 1000,
    ttlMs: config.DOMAIN_CLAIM_TTL_S * 1000,
  };
}

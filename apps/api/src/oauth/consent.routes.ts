/**
 * The OAuth routes behind the API's authentication.
 *
 * With the dashboard session (the consent page) — an API key or OAuth token cannot consent
 * (`requireSession`):
 *  - GET  /oauth/consent    what the page shows: the client's name and logo, the scopes;
 *  - POST /oauth/consent    the person's decision: `{ …the request's parameters, approve }` →
 *    `{ redirect_to }`, the client's redirect URI with the code (or `error=access_denied`).
 *
 * The SDK's `oauthGrants.list` / `revoke`: GET /oauth/grants, DELETE /oauth/grants/:id, with an
 * API key or the session, never by the apps the grants are given to (`refuseOAuthToken`).
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { LIMITS, OAUTH_AUTHORIZATION_PARAMS, validationError } from '@petrel/contracts';
import {
  authorizationRedirect,
  checkAuthorizationRequest,
  consentDetails,
  listOAuthGrants,
  newId,
  revokeOAuthGrant,
  type AuthorizationCheck,
  type Clock,
} from '@petrel/core';
import { refuseOAuthToken, requireSession } from '../middleware/auth.js';
import { parseBody } from '../routes/parse-body.js';
import { pageArray, parsePageQuery } from '../routes/pagination.js';
import { pathParam, type RouteSpec } from '../routes/route-table.js';
import { authorizeServer } from './authorize-server.js';
import type { OAuthStores } from './model.js';

export interface OAuthRouteDeps {
  stores: OAuthStores;
  /** The API's public URL (the issuer and the endpoints of the metadata). */
  publicUrl(): string;
  clock: Pick<Clock, 'now'>;
}

const decisionSchema = z.strictObject({
  ...Object.fromEntries(OAUTH_AUTHORIZATION_PARAMS.map((p) => [p, z.string().max(2048).optional()])),
  approve: z.boolean(),
});

/** The authorization request's parameters of a query or body (the string ones). */
export function paramsOf(source: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of OAUTH_AUTHORIZATION_PARAMS) {
    const v = source[p];
    if (typeof v === 'string') out[p] = v;
  }
  return out;
}

/** A refused check as the API's 4xx (the consent endpoints): the message names the parameter. */
const refusal = (check: Exclude<AuthorizationCheck, { ok: true }>) => validationError(check.message);

/** The consent endpoints and the grants of the SDK (behind the API's authentication). */
export function oauthApiRoutes(deps: OAuthRouteDeps): RouteSpec[] {
  const codes = authorizeServer(deps.stores);

  const consentRead: RequestHandler = async (req, res) => {
    const check = await checkAuthorizationRequest(req.query as Record<string, unknown>, deps.stores.clients);
    if (!check.ok) throw refusal(check);
    res.setHeader('Cache-Control', 'no-store');
    res.json(consentDetails(check.request));
  };

  const consentDecide: RequestHandler = async (req, res) => {
    const body = parseBody(decisionSchema, req.body);
    const params = paramsOf(body);
    const check = await checkAuthorizationRequest(params, deps.stores.clients);
    if (!check.ok) throw refusal(check);
    const { request } = check;
    res.setHeader('Cache-Control', 'no-store');
    if (!body.approve) {
      res.json({
        object: 'oauth_consent',
        redirect_to: authorizationRedirect(request.redirectUri, {
          error: 'access_denied',
          error_description: 'The team did not approve the application',
          state: request.state,
        }),
      });
      return;
    }
    const teamId = res.locals.auth.teamId;
    const grant = await deps.stores.grants.approve(teamId, {
      clientId: request.client.id,
      scopes: request.scopes,
      newGrantId: newId(),
      nowMs: deps.clock.now(),
    });
    const oauthRequest = new OAuth2Server.Request({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      query: {},
      body: { ...params, scope: request.scopes.join(' ') },
    });
    const response = new OAuth2Server.Response();
    await codes.authorize(oauthRequest, response, {
      authenticateHandler: { handle: () => ({ teamId, grantId: grant.id }) },
    });
    res.json({ object: 'oauth_consent', grant_id: grant.id, redirect_to: response.get('location') });
  };

  const list: RequestHandler = async (req: Request, res) => {
    const page = parsePageQuery(req, LIMITS.paginationMax);
    const grants = await listOAuthGrants(res.locals.auth.teamId, deps.stores);
    const { data, has_more } = pageArray(grants, page);
    res.json({ object: 'list', has_more, data });
  };

  const revoke: RequestHandler = async (req, res) => {
    res.json(
      await revokeOAuthGrant(res.locals.auth.teamId, pathParam(req, 'id'), {
        grants: deps.stores.grants,
        clock: deps.clock,
      }),
    );
  };

  return [
    {
      path: '/oauth/consent',
      methods: { get: [requireSession, consentRead], post: [requireSession, consentDecide] },
    },
    { path: '/oauth/grants', methods: { get: [refuseOAuthToken, list] } },
    { path: '/oauth/grants/:id', methods: { delete: [refuseOAuthToken, revoke] } },
  ];
}

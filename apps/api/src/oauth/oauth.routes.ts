/**
 * The OAuth routes.
 *
 * Without an API key (the client's browser and the client's server call these):
 *  - GET  /oauth/authorize  checks the request (RFC 6749 section 4.1.1, PKCE required) and sends the
 *    browser to the dashboard's consent page with the same parameters; a bad client or
 *    redirect URI is a page for the person, any other mistake goes back to the client
 *    (section 4.1.2.1);
 *  - POST /oauth/token      the token endpoint (section 3.2): code and refresh token exchanges;
 *  - GET  /.well-known/oauth-authorization-server   the server's metadata (RFC 8414).
 *
 * With the dashboard session (the consent page) — an API key or OAuth token cannot consent:
 *  - GET  /oauth/consent    what the page shows: the client's name and logo, the scopes;
 *  - POST /oauth/consent    the person's decision: `{ …the request's parameters, approve }` →
 *    `{ redirect_to }`, the client's redirect URI with the code (or `error=access_denied`).
 *
 * The SDK's `oauthGrants.list` / `revoke`: GET /oauth/grants, DELETE /oauth/grants/:id.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import OAuth2Server from '@node-oauth/oauth2-server';
import { z } from 'zod';
import { LIMITS, OAUTH_AUTHORIZATION_PARAMS, PetrelError, validationError } from '@petrel/contracts';
import {
  OAUTH_SCOPES,
  authorizationRedirect,
  checkAuthorizationRequest,
  consentDetails,
  listOAuthGrants,
  newId,
  revokeOAuthGrant,
  type AuthorizationCheck,
} from '@petrel/core';
import { parseBody } from '../routes/parse-body.js';
import { pageArray, parsePageQuery } from '../routes/pagination.js';
import { pathParam, type RouteSpec } from '../routes/route-table.js';
import { authorizeServer, tokenServer, type OAuthStores } from './authorization-server.js';

/** Where GET /oauth/authorize sends the browser: the dashboard's consent page (a hash route). */
const CONSENT_PAGE_PATH = '/dashboard/#/oauth/authorize';

/** Largest token request body: a code, a verifier, a redirect URI and client credentials. */
const TOKEN_BODY_LIMIT = '16kb';

const decisionSchema = z.strictObject({
  ...Object.fromEntries(OAUTH_AUTHORIZATION_PARAMS.map((p) => [p, z.string().max(2048).optional()])),
  approve: z.boolean(),
});

function paramsOf(source: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of OAUTH_AUTHORIZATION_PARAMS) {
    const v = source[p];
    if (typeof v === 'string') out[p] = v;
  }
  return out;
}

/** A refused check as the API's 4xx (the consent endpoints): the message names the parameter. */
function refusal(check: Exclude<AuthorizationCheck, { ok: true }>): PetrelError {
  return validationError(check.message);
}

/** Only a person signed in to the dashboard consents, never a credential an app holds. */
function requireSession(res: Response): void {
  if (res.locals.authVia !== 'session')
    throw new PetrelError(
      'invalid_permission',
      'An application is approved in the dashboard by a signed-in person, not with an API key or OAuth token',
    );
}

/** Grants are managed with an API key or in the dashboard, not by the apps they are given to. */
function refuseOAuthTokens(res: Response): void {
  if (res.locals.authVia === 'oauth')
    throw new PetrelError(
      'invalid_permission',
      'OAuth grants are managed with an API key or in the dashboard',
    );
}

function sendOAuth(res: Response, response: OAuth2Server.Response): void {
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.status(response.status ?? 200).json(response.body ?? {});
}

export interface OAuthRouteDeps {
  stores: OAuthStores;
  /** The API's public URL (the issuer and the endpoints of the metadata). */
  publicUrl(): string;
  now(): Date;
}

/** The routes served without an API key (mounted beside the other link routes). */
export function oauthPublicRoutes(deps: OAuthRouteDeps): RouteSpec[] {
  const tokens = tokenServer(deps.stores);

  const authorize: RequestHandler = async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const check = await checkAuthorizationRequest(query, deps.stores.clients);
    if (!check.ok) {
      if (check.redirect === null) throw new PetrelError('validation_error', check.message, 400);
      res.redirect(302, check.redirect);
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, `${CONSENT_PAGE_PATH}?${new URLSearchParams(paramsOf(query)).toString()}`);
  };

  const token: RequestHandler = async (req, res) => {
    const request = new OAuth2Server.Request({
      headers: req.headers as Record<string, string>,
      method: req.method,
      query: req.query as Record<string, string>,
      body: (req.body ?? {}) as Record<string, string>,
    });
    const response = new OAuth2Server.Response();
    try {
      await tokens.token(request, response);
    } catch (err) {
      // a failure of ours (Redis unreachable) goes to the error middleware as any other; a
      // refusal is the RFC 6749 section 5.2 error (the library sets it on `response` only for
      // some, so it is written here for all)
      if (!(err instanceof OAuth2Server.OAuthError)) throw err;
      if (err instanceof OAuth2Server.ServerError) throw (err as { inner?: unknown }).inner ?? err;
      response.status = err.code;
      response.body = { error: err.name, error_description: err.message };
    }
    // readable from any origin: an app whose code exchange runs in a browser (a public client
    // with PKCE) calls this cross-origin. The endpoint takes no cookie or other ambient
    // credential, only what the request itself carries, so no origin gains anything it could not
    // send from anywhere else. A form POST without an Authorization header is a CORS "simple
    // request" (Fetch standard, CORS protocol): no preflight is needed.
    res.setHeader('Access-Control-Allow-Origin', '*');
    sendOAuth(res, response);
  };

  const metadata: RequestHandler = (_req, res) => {
    const base = deps.publicUrl().replace(/\/$/, '');
    res.json({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...OAUTH_SCOPES],
    });
  };

  return [
    { path: '/oauth/authorize', methods: { get: authorize } },
    {
      path: '/oauth/token',
      methods: { post: [express.urlencoded({ extended: false, limit: TOKEN_BODY_LIMIT }), token] },
    },
    { path: '/.well-known/oauth-authorization-server', methods: { get: metadata } },
  ];
}

/** The consent endpoints and the grants of the SDK (behind the API's authentication). */
export function oauthApiRoutes(deps: OAuthRouteDeps): RouteSpec[] {
  const codes = authorizeServer(deps.stores);

  const consentRead: RequestHandler = async (req, res) => {
    requireSession(res);
    const check = await checkAuthorizationRequest(req.query as Record<string, unknown>, deps.stores.clients);
    if (!check.ok) throw refusal(check);
    res.setHeader('Cache-Control', 'no-store');
    res.json(consentDetails(check.request));
  };

  const consentDecide: RequestHandler = async (req, res) => {
    requireSession(res);
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
      now: deps.now(),
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
    refuseOAuthTokens(res);
    const page = parsePageQuery(req, LIMITS.paginationMax);
    const grants = await listOAuthGrants(res.locals.auth.teamId, deps.stores);
    const { data, has_more } = pageArray(grants, page);
    res.json({ object: 'list', has_more, data });
  };

  const revoke: RequestHandler = async (req, res) => {
    refuseOAuthTokens(res);
    res.json(
      await revokeOAuthGrant(res.locals.auth.teamId, pathParam(req, 'id'), {
        grants: deps.stores.grants,
        now: deps.now,
      }),
    );
  };

  return [
    { path: '/oauth/consent', methods: { get: consentRead, post: consentDecide } },
    { path: '/oauth/grants', methods: { get: list } },
    { path: '/oauth/grants/:id', methods: { delete: revoke } },
  ];
}

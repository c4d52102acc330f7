/**
 * The OAuth routes served without an API key (the client's browser and the client's server call
 * these):
 *  - GET  /oauth/authorize  checks the request (RFC 6749 section 4.1.1, PKCE required) and sends the
 *    browser to the dashboard's consent page with the same parameters; a bad client or
 *    redirect URI is a page for the person, any other mistake goes back to the client
 *    (section 4.1.2.1);
 *  - POST /oauth/token      the token endpoint (section 3.2): code and refresh token exchanges;
 *  - POST /oauth/revoke     token revocation (RFC 7009);
 *  - GET  /.well-known/oauth-authorization-server   the server's metadata (RFC 8414).
 *
 * The consent page's endpoints and the SDK's grants are in consent.routes.ts.
 */
import express, { type RequestHandler } from 'express';
import { PetrelError } from '@petrel/contracts';
import { OAUTH_SCOPES, checkAuthorizationRequest } from '@petrel/core';
import type { RouteSpec } from '../routes/route-table.js';
import { paramsOf, type OAuthRouteDeps } from './consent.routes.js';
import { revocationEndpoint, tokenEndpoint } from './token-endpoints.js';

/** Where GET /oauth/authorize sends the browser: the dashboard's consent page (a hash route). */
const CONSENT_PAGE_PATH = '/dashboard/#/oauth/authorize';

/** Largest token or revocation request body: a code or token, a verifier, a redirect URI, client credentials. */
const FORM_LIMIT = '16kb';

export function oauthPublicRoutes(deps: OAuthRouteDeps): RouteSpec[] {
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

  const metadata: RequestHandler = (_req, res) => {
    const base = deps.publicUrl().replace(/\/$/, '');
    res.json({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: [...OAUTH_SCOPES],
    });
  };

  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT });
  return [
    { path: '/oauth/authorize', methods: { get: authorize } },
    { path: '/oauth/token', methods: { post: [form, tokenEndpoint(deps.stores)] } },
    { path: '/oauth/revoke', methods: { post: [form, revocationEndpoint(deps.stores)] } },
    { path: '/.well-known/oauth-authorization-server', methods: { get: metadata } },
  ];
}

/**
 * The client's endpoints of the authorization server: POST /oauth/token (RFC 6749 section 3.2:
 * code and refresh token exchanges, by the library) and POST /oauth/revoke (RFC 7009: the client
 * gives up a token). Both take form bodies, answer RFC 6749 section 5.2 errors and are never
 * cached.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Request, RequestHandler, Response } from 'express';
import { authenticateOAuthClient, revokeOAuthTokenOfClient } from '@petrel/core';
import { tokenServer } from './authorization-server.js';
import type { OAuthStores } from './model.js';

/** An RFC 6749 section 5.2 error body (RFC 7009 section 2.2.1 uses the same). */
const oauthError = (error: string, description: string) => ({ error, error_description: description });

function sendOAuth(res: Response, status: number, body: object, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  // readable from any origin: an app whose code exchange runs in a browser (a public client with
  // PKCE) calls these cross-origin. They take no cookie or other ambient credential, only what the
  // request itself carries, so no origin gains anything it could not send from anywhere else. A
  // form POST without an Authorization header is a CORS "simple request" (Fetch standard, CORS
  // protocol): no preflight is needed.
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.status(status).json(body);
}

/** POST /oauth/token. */
export function tokenEndpoint(stores: OAuthStores): RequestHandler {
  const tokens = tokenServer(stores);
  return async (req, res) => {
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
      response.body = oauthError(err.name, err.message);
    }
    sendOAuth(res, response.status ?? 200, response.body ?? {}, response.headers ?? {});
  };
}

/**
 * The client's credentials (RFC 6749 section 2.3.1): HTTP Basic (RFC 7617; the id and secret
 * form-urlencoded first, as section 2.3.1 says), else `client_id` and `client_secret` in the form.
 */
function clientCredentials(req: Request): { id: string; secret: string | undefined } | null {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.get('authorization') ?? '');
  if (basic) {
    const pair = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0) return null;
    const form = new URLSearchParams(`id=${pair.slice(0, colon)}&secret=${pair.slice(colon + 1)}`);
    return { id: form.get('id') ?? '', secret: form.get('secret') ?? '' };
  }
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (typeof body.client_id !== 'string' || body.client_id === '') return null;
  return {
    id: body.client_id,
    secret: typeof body.client_secret === 'string' ? body.client_secret : undefined,
  };
}

/**
 * POST /oauth/revoke (RFC 7009 section 2.1): the client authenticates as at the token endpoint,
 * names the token; the token's grant is revoked with every token of it. An unknown, expired or
 * already revoked token answers 200 as well (section 2.2): the client's aim, that the token not
 * work, holds. `token_type_hint` is not needed (a token's prefix names its kind) and is ignored,
 * as section 2.1 allows.
 */
export function revocationEndpoint(stores: OAuthStores): RequestHandler {
  const ports = { grants: stores.grants, tokens: stores.grants, clock: Date };
  return async (req, res) => {
    const credentials = clientCredentials(req);
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    if (!credentials && !req.get('authorization'))
      return sendOAuth(res, 400, oauthError('invalid_request', 'client_id: is required (or HTTP Basic)'));
    const client =
      credentials && (await authenticateOAuthClient(credentials.id, credentials.secret, stores.clients));
    if (!client) {
      const challenge = { 'WWW-Authenticate': 'Basic realm="petrel"' };
      return sendOAuth(
        res,
        401,
        oauthError(
          'invalid_client',
          'client_id: no registered client with this id and secret (a confidential client sends its secret)',
        ),
        challenge,
      );
    }
    if (typeof token !== 'string' || token === '')
      return sendOAuth(res, 400, oauthError('invalid_request', 'token: is required'));
    const done = await revokeOAuthTokenOfClient({ token, clientId: client.id }, ports);
    if (done === 'other_client')
      return sendOAuth(res, 400, oauthError('invalid_grant', 'token: was issued to another client'));
    sendOAuth(res, 200, {});
  };
}

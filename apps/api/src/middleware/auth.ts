/**
 * Bearer-token authentication. Missing header → 401 missing_api_key; unknown or revoked key →
 * 403 invalid_api_key; a sending_access key outside the sending endpoints → 401
 * restricted_api_key, the statuses and error names Resend's API answers with.
 *
 * Without an Authorization header, the dashboard's session cookie authenticates instead (when
 * the app is given one): a session stands for the full_access key it was made from; a bad,
 * expired or signed-out session → 401 invalid_session, a write without the session's CSRF
 * token → 403 invalid_csrf_token. A request with a Bearer key is never judged by its cookies,
 * so the SDK sees exactly the behaviour above.
 *
 * A Bearer token of the OAuth kind (`pto_…`, docs/oauth.md) is an access token a third-party app
 * got through the team's consent: its scopes stand for the permission (full or sending access);
 * an unknown, expired or revoked one → 401 invalid_access_token with the RFC 6750 section 3
 * challenge, and one whose scopes do not reach the endpoint → 403 invalid_permission (Resend's
 * name for an OAuth token that lacks the scope).
 */
import type { NextFunction, Request, Response } from 'express';
import { PetrelError } from '@petrel/contracts';
import { isOAuthAccessToken } from '@petrel/core';
import type { ApiKeysStore, AuthenticatedKey } from '@petrel/store';
import { withLogContext } from '@petrel/observability';
import type { SessionCookieAuth } from '../dashboard/session-auth.js';
import type { OAuthBearerAuth } from '../oauth/token-auth.js';

declare module 'express-serve-static-core' {
  interface Locals {
    auth: AuthenticatedKey;
    /** What authenticated the request: an API key, the dashboard session, or an OAuth token. */
    authVia: 'api_key' | 'session' | 'oauth';
    requestId: string;
  }
}

export function authenticate(store: ApiKeysStore, sessions?: SessionCookieAuth, oauth?: OAuthBearerAuth) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    if (header === undefined && sessions?.present(req)) {
      const check = await sessions.check(req);
      if (!check.ok) {
        if (check.reason === 'csrf') {
          throw new PetrelError(
            'invalid_csrf_token',
            'A write made with the dashboard session needs its CSRF token in the x-csrf-token header',
          );
        }
        throw new PetrelError(
          'invalid_session',
          'The dashboard session is missing or expired: sign in again',
        );
      }
      const { teamId, keyId } = check.session;
      res.locals.auth = { teamId, keyId, permission: 'full_access' };
      res.locals.authVia = 'session';
      return withLogContext({ teamId, keyId }, next);
    }
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw new PetrelError(
        'missing_api_key',
        'Missing API key in the authorization header. Use `Authorization: Bearer <API_KEY>`.',
      );
    }
    const token = match[1]!;
    if (oauth && isOAuthAccessToken(token)) {
      const granted = await oauth.authenticate(token);
      if (!granted) {
        res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
        throw new PetrelError(
          'invalid_access_token',
          'The OAuth access token is invalid, expired or revoked',
        );
      }
      res.locals.auth = granted;
      res.locals.authVia = 'oauth';
      return withLogContext({ teamId: granted.teamId, keyId: granted.keyId }, next);
    }
    const key = await store.authenticate(token);
    if (!key) throw new PetrelError('invalid_api_key', 'API key is invalid');
    res.locals.auth = key;
    res.locals.authVia = 'api_key';
    withLogContext({ teamId: key.teamId, keyId: key.keyId }, next);
  };
}

/** Allow only full_access keys past this point. */
export function requireFullAccess(_req: Request, res: Response, next: NextFunction): void {
  if (res.locals.auth.permission !== 'full_access') {
    if (res.locals.authVia === 'oauth')
      throw new PetrelError(
        'invalid_permission',
        'This OAuth token may only send emails: the endpoint needs the full_access scope',
      );
    throw new PetrelError('restricted_api_key', 'This API key is restricted to only send emails');
  }
  next();
}

/** Only a person signed in to the dashboard passes (approving an OAuth app), never an app's credential. */
export function requireSession(_req: Request, res: Response, next: NextFunction): void {
  if (res.locals.authVia !== 'session')
    throw new PetrelError(
      'invalid_permission',
      'An application is approved in the dashboard by a signed-in person, not with an API key or OAuth token',
    );
  next();
}

/** OAuth grants are managed with an API key or in the dashboard, not by the apps they are given to. */
export function refuseOAuthToken(_req: Request, res: Response, next: NextFunction): void {
  if (res.locals.authVia === 'oauth')
    throw new PetrelError(
      'invalid_permission',
      'OAuth grants are managed with an API key or in the dashboard',
    );
  next();
}

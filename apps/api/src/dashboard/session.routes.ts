/**
 * /dashboard/session: sign in (a full-access API key for a session cookie), read the session,
 * sign out. The key is sent once, in this POST's body, and never stored by the browser.
 */
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { PetrelError } from '@petrel/contracts';
import { signIn, signOut, type DashboardSession, type DashboardSessionPorts } from '@petrel/core';
import { parseBody } from '../routes/parse-body.js';
import type { RouteSpec } from '../routes/route-table.js';
import { SESSION_COOKIE, clearSessionCookies, isHttps, readCookie, setSessionCookies } from './cookies.js';
import type { SessionCookieAuth } from './session-auth.js';

export interface DashboardSessionDeps {
  ports: DashboardSessionPorts;
  auth: SessionCookieAuth;
  publicUrl: string | undefined;
}

const signInSchema = z.strictObject({ api_key: z.string().min(1).max(512) });

function sessionWire(s: DashboardSession) {
  return {
    object: 'dashboard_session',
    team_id: s.teamId,
    key_id: s.keyId,
    key_name: s.keyName,
    expires_at: new Date(s.expiresMs).toISOString(),
    csrf_token: s.csrfToken,
  };
}

export function dashboardSessionRoutes(deps: DashboardSessionDeps): RouteSpec[] {
  const create: RequestHandler = async (req, res) => {
    const body = parseBody(signInSchema, req.body);
    const result = await signIn(body.api_key, deps.ports);
    if (!result.ok) {
      if (result.reason === 'not_full_access') {
        throw new PetrelError('restricted_api_key', 'The dashboard needs a full_access API key');
      }
      throw new PetrelError('invalid_api_key', 'API key is invalid');
    }
    setSessionCookies(res, {
      session: result.cookie,
      csrf: result.session.csrfToken,
      maxAgeS: Math.floor(deps.ports.ttlMs / 1000),
      secure: isHttps(req, deps.publicUrl),
    });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(sessionWire(result.session));
  };

  const read: RequestHandler = async (req, res) => {
    const check = await deps.auth.check(req);
    if (!check.ok) {
      // an ended session's cookies go too: the app asks only while they are there
      if (deps.auth.present(req)) clearSessionCookies(res, isHttps(req, deps.publicUrl));
      throw new PetrelError('invalid_session', 'No dashboard session: sign in');
    }
    res.setHeader('Cache-Control', 'no-store');
    res.json(sessionWire(check.session));
  };

  const remove: RequestHandler = async (req, res) => {
    const check = await deps.auth.check(req);
    if (!check.ok) {
      if (check.reason === 'csrf') {
        throw new PetrelError(
          'invalid_csrf_token',
          'Signing out needs the CSRF token in the x-csrf-token header',
        );
      }
      clearSessionCookies(res, isHttps(req, deps.publicUrl));
      throw new PetrelError('invalid_session', 'No dashboard session: sign in');
    }
    await signOut(readCookie(req, SESSION_COOKIE), deps.ports);
    clearSessionCookies(res, isHttps(req, deps.publicUrl));
    res.json({ object: 'dashboard_session', deleted: true });
  };

  return [{ path: '/dashboard/session', methods: { post: create, get: read, delete: remove } }];
}

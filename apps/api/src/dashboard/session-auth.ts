/**
 * Authentication by the dashboard's session cookie, for the authenticate middleware: the rules
 * are core's (checkSession); this reads the cookie and the CSRF header off the request.
 */
import type { Request } from 'express';
import { checkSession, type DashboardSessionPorts, type SessionCheck } from '@petrel/core';
import { CSRF_HEADER, SESSION_COOKIE, readCookie } from './cookies.js';

export interface SessionCookieAuth {
  /** True when the request carries a session cookie at all (else the Bearer rules apply). */
  present(req: Request): boolean;
  check(req: Request): Promise<SessionCheck>;
}

export function sessionCookieAuth(
  ports: Pick<DashboardSessionPorts, 'sessions' | 'clock' | 'secret'>,
): SessionCookieAuth {
  return {
    present: (req) => readCookie(req, SESSION_COOKIE) !== undefined,
    check: (req) =>
      checkSession(
        { cookie: readCookie(req, SESSION_COOKIE), method: req.method, csrfHeader: req.get(CSRF_HEADER) },
        ports,
      ),
  };
}

/**
 * The dashboard's side of the API process: the session endpoints, the CSP report endpoint and
 * the built single-page app, all under /dashboard, and the app's icon as /favicon.ico. Everything
 * else the app does goes through the public API, authenticated by the session cookie
 * (middleware/auth.ts).
 */
import { fileURLToPath } from 'node:url';
import { Router, type RequestHandler } from 'express';
import type { DashboardSessionPorts } from '@petrel/core';
import { jsonBody } from '../middleware/json-body.js';
import { requireFullAccess } from '../middleware/auth.js';
import { mountRoutes } from '../routes/route-table.js';
import {
  CSP_REPORT_PATH,
  CspReports,
  listCspReports,
  receiveCspReport,
  setDashboardSecurityHeaders,
} from './csp.js';
import { dashboardSessionRoutes } from './session.routes.js';
import { sessionCookieAuth, type SessionCookieAuth } from './session-auth.js';
import { FAVICON_PATH, dashboardStatic } from './static.js';

export { type SessionCookieAuth } from './session-auth.js';
export { CspReports } from './csp.js';

export interface DashboardDeps {
  ports: DashboardSessionPorts;
  /** The built app (index.html and assets/), or null to serve a "not built" page. */
  distDir: string | null;
  publicUrl: string | undefined;
  cspReports: CspReports;
}

/** Largest sign-in body: `{"api_key": …}`. */
const SIGN_IN_BODY_LIMIT = 4 * 1024;

export function dashboardRouter(
  deps: DashboardDeps,
  authenticate: (sessions: SessionCookieAuth) => RequestHandler,
): { router: Router; sessions: SessionCookieAuth } {
  const sessions = sessionCookieAuth(deps.ports);
  const router = Router();
  router.use(['/dashboard', FAVICON_PATH], (_req, res, next) => {
    setDashboardSecurityHeaders(res);
    next();
  });
  const api = Router();
  api.use(
    '/dashboard/session',
    jsonBody(() => SIGN_IN_BODY_LIMIT),
  );
  mountRoutes(api, [
    ...dashboardSessionRoutes({ ports: deps.ports, auth: sessions, publicUrl: deps.publicUrl }),
    {
      path: CSP_REPORT_PATH,
      methods: {
        post: receiveCspReport(deps.cspReports),
        get: [authenticate(sessions), requireFullAccess, listCspReports(deps.cspReports)],
      },
    },
  ]);
  router.use(api);
  router.use(dashboardStatic(deps.distDir));
  return { router, sessions };
}

/**
 * apps/dashboard/dist of this checkout (the SPA's build output), from this file's place:
 * apps/api/src/dashboard or apps/api/dist/dashboard alike.
 */
export function defaultDashboardDist(): string {
  return fileURLToPath(new URL('../../../dashboard/dist', import.meta.url));
}

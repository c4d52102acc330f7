/**
 * The Express application: request context, body parsing with explicit limits, authentication,
 * the resource routes, 404/405, and the one error middleware.
 */
import express, { Router, type Request } from 'express';
import { PetrelError } from '@petrel/contracts';
import type { ApiKeysStore } from '@petrel/store';
import { authenticate, requireFullAccess } from './middleware/auth.js';
import { errorHandler } from './middleware/errors.js';
import { rateLimit, type RateLimitDeps } from './middleware/rate-limit.js';
import { requestLog, type RequestLogSink } from './middleware/request-log.js';
import { requestContext } from './middleware/request-context.js';
import { securityHeaders } from './middleware/security-headers.js';
import { jsonBody } from './middleware/json-body.js';
import { apiKeysRoutes, type DomainLookup } from './routes/api-keys.routes.js';
import { emailsRoutes, type EmailsRouteDeps } from './routes/emails.routes.js';
import { mountRoutes, type RouteSpec } from './routes/route-table.js';
import { unsubscribeErrors } from './routes/unsubscribe.routes.js';
import { dashboardRouter, type DashboardDeps, type SessionCookieAuth } from './dashboard/index.js';
import type { OAuthBearerAuth } from './oauth/index.js';

export interface AppDeps extends EmailsRouteDeps {
  apiKeys: ApiKeysStore;
  ready: () => Promise<boolean>;
  bodyLimitBytes: number;
  batchBodyLimitBytes: number;
  /** Routes of later features (templates, ...), mounted with the others in one order. */
  extraRoutes?: RouteSpec[];
  /**
   * Routes served without an API key, whose credential is in the URL (unsubscribe links, open
   * pixels and tracked links); their errors are pages for a person, not API errors.
   */
  unsubscribeRoutes?: RouteSpec[];
  /** The team's domains, for POST /api-keys `domain_id` (absent: any id is stored unchecked). */
  domains?: DomainLookup;
  /** Per-team request rate (RATE_LIMIT_RPS and the teams' own limits); absent: none. */
  rateLimit?: RateLimitDeps;
  /** The team's request log (GET /logs): each finished request with an API key; absent: none. */
  requestLog?: RequestLogSink;
  /** The web dashboard: its session endpoints and files under /dashboard, and cookie sessions. */
  dashboard?: DashboardDeps;
  /** OAuth access tokens as Bearer credentials (docs/oauth.md); absent: API keys only. */
  oauthTokens?: OAuthBearerAuth;
}

/** The only paths a sending_access key may use (Resend scopes it to sending), and only with POST. */
const SENDING_PATHS = new Set(['/emails', '/emails/batch']);

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  // first: every response carries them, whatever answers it (a 404, a 401, the error handler)
  app.use(securityHeaders);
  app.use(requestContext);

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    const ok = await deps.ready();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready' });
  });

  if (deps.unsubscribeRoutes) {
    const links = Router();
    mountRoutes(links, deps.unsubscribeRoutes);
    links.use(unsubscribeErrors);
    app.use(links);
  }

  let sessions: SessionCookieAuth | undefined;
  if (deps.dashboard) {
    const dashboard = dashboardRouter(deps.dashboard, (s) => authenticate(deps.apiKeys, s, deps.oauthTokens));
    sessions = dashboard.sessions;
    app.use(dashboard.router);
  }

  const api = Router();
  // Authenticate before reading the body: an anonymous client cannot make us buffer anything.
  api.use(authenticate(deps.apiKeys, sessions, deps.oauthTokens));
  // Logged from here on (a 429 included); written after the response (middleware/request-log.ts).
  if (deps.requestLog) api.use(requestLog(deps.requestLog));
  // The team's rate limit, before the body is read: a refused request costs one round trip.
  if (deps.rateLimit) api.use(rateLimit(deps.rateLimit));
  api.use(jsonBody((req) => (req.path === '/emails/batch' ? deps.batchBodyLimitBytes : deps.bodyLimitBytes)));
  // A sending_access key may only send: everything else needs full access.
  api.use((req, res, next) => {
    if (req.method === 'POST' && SENDING_PATHS.has(req.path)) return next();
    return requireFullAccess(req, res, next);
  });
  mountRoutes(api, [
    ...emailsRoutes(deps),
    ...apiKeysRoutes(deps.apiKeys, deps.domains),
    ...(deps.extraRoutes ?? []),
  ]);
  app.use(api);

  app.use((req: Request) => {
    throw new PetrelError('not_found', `No route for ${req.method} ${req.path}`);
  });
  app.use(errorHandler);
  return app;
}

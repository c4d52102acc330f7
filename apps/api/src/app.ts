/**
 * The Express application: request context, body parsing with explicit limits, authentication,
 * the resource routes, 404/405, and the one error middleware.
 */
import express, { Router, type Request, type Response } from 'express';
import { PetrelError } from '@petrel/contracts';
import type { ApiKeysStore } from '@petrel/store';
import { authenticate, requireFullAccess } from './middleware/auth.js';
import { errorHandler } from './middleware/errors.js';
import { requestContext } from './middleware/request-context.js';
import { jsonBody } from './middleware/json-body.js';
import { apiKeysRoutes } from './routes/api-keys.routes.js';
import { emailsRoutes, type EmailsRouteDeps } from './routes/emails.routes.js';

export interface AppDeps extends EmailsRouteDeps {
  apiKeys: ApiKeysStore;
  ready: () => Promise<boolean>;
  bodyLimitBytes: number;
  batchBodyLimitBytes: number;
  /** Extra full-access routes registered by later features (templates, ...). */
  extraRoutes?: ((router: Router) => void)[];
}

const SENDING_PATHS = new Set(['/emails', '/emails/batch']);

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext);

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    const ok = await deps.ready();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready' });
  });

  const api = Router();
  // Authenticate before reading the body: an anonymous client cannot make us buffer anything.
  api.use(authenticate(deps.apiKeys));
  api.use(jsonBody((req) => (req.path === '/emails/batch' ? deps.batchBodyLimitBytes : deps.bodyLimitBytes)));
  // A sending_access key may only send: everything else needs full access.
  api.use((req, res, next) => {
    if (req.method === 'POST' && SENDING_PATHS.has(req.path)) return next();
    return requireFullAccess(req, res, next);
  });
  emailsRoutes(api, deps);
  apiKeysRoutes(api, deps.apiKeys);
  for (const register of deps.extraRoutes ?? []) register(api);
  addMethodNotAllowed(api);
  app.use(api);

  app.use((req: Request) => {
    throw new PetrelError('not_found', `No route for ${req.method} ${req.path}`);
  });
  app.use(errorHandler);
  return app;
}

/** Every registered path answers other methods with 405 and an Allow header. */
function addMethodNotAllowed(router: Router): void {
  type Layer = { route?: { path: string; methods: Record<string, boolean>; all: (fn: unknown) => void } };
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    const route = layer.route;
    if (!route) continue;
    const allowed = Object.keys(route.methods)
      .filter((m) => m !== '_all')
      .map((m) => m.toUpperCase());
    route.all((req: Request, res: Response) => {
      res.setHeader('Allow', allowed.join(', '));
      throw new PetrelError('method_not_allowed', `Method ${req.method} is not allowed on ${route.path}`);
    });
  }
}

/**
 * Start the HTTP API on a runtime: the Express app over the routes of api-routes.ts, and its
 * HTTP server. Used by `main.ts` (API alone) and by the all-in-one launcher, which hands it the
 * process's runtime.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { publicUrl } from '@petrel/config';
import type { ApiKeysStore } from '@petrel/store';
import { partStart, type Component, type Runtime } from '@petrel/runtime';
import { listenHttp, log } from '@petrel/observability';
import { apiContext, type ApiContext, type ApiExtensions } from './api-context.js';
import { apiRoutes, linkRoutes } from './api-routes.js';
import { createApp } from './app.js';
import type { ApiConfig } from './config.js';
import { CspReports, defaultDashboardDist } from './dashboard/index.js';

export type { ApiContext, ApiExtensions } from './api-context.js';

/** How long shutdown waits for in-flight requests before cutting the remaining connections. */
export const SHUTDOWN_DRAIN_MS = 10_000;

export interface ApiHandle extends Component {
  port: number;
  server: Server;
  /** The Express app behind `server` (its router lists every route). */
  app: Express;
  apiKeys: ApiKeysStore;
  defaultTeamId: string;
}

/** The Express app over the context: authentication, limits, the dashboard and every route. */
function appOf(ctx: ApiContext, ext: ApiExtensions): Express {
  const { config, stores: s } = ctx;
  return createApp({
    apiKeys: s.apiKeys,
    domains: s.domains,
    emails: s.emails,
    queues: ctx.queues.send,
    accept: ctx.accept,
    broadcastEmails: ctx.broadcastEmails,
    ready: () => ctx.rt.ready(),
    rateLimit: { limiter: s.limits, defaultRps: config.RATE_LIMIT_RPS },
    ...(ctx.requestLog && { requestLog: ctx.requestLog }),
    dashboard: {
      ports: {
        keys: s.apiKeys,
        sessions: s.dashboardSessions,
        clock: Date,
        randomToken: () => randomBytes(32).toString('base64url'),
        // the links' key, under its own purpose (a session cookie is no link token, and back)
        secret: ctx.secret,
        ttlMs: config.DASHBOARD_SESSION_TTL_S * 1000,
      },
      distDir: config.DASHBOARD_DIST_DIR ?? defaultDashboardDist(),
      publicUrl: config.PUBLIC_URL,
      cspReports: new CspReports(),
    },
    bodyLimitBytes: config.API_BODY_LIMIT_BYTES,
    batchBodyLimitBytes: config.API_BATCH_BODY_LIMIT_BYTES,
    oauthTokens: ctx.oauth.tokens,
    extraRoutes: [...apiRoutes(ctx), ...(ext.routes ? ext.routes(ctx) : [])],
    unsubscribeRoutes: linkRoutes(ctx),
  });
}

/** The API on the all-in-one's runtime (`shared`), or on one of its own (partStart). */
export const startApi = partStart(
  'api',
  'the API',
  async (config: ApiConfig, rt: Runtime, ext: ApiExtensions): Promise<ApiHandle> => {
    // read per request: with PORT=0 the port is known only once listening
    const url = () =>
      publicUrl({ ...config, PORT: (server.address() as AddressInfo | null)?.port ?? config.PORT });
    const ctx = await apiContext(config, rt, ext, url);
    const app = appOf(ctx, ext);
    let closing = false;
    const { server, port } = await listenHttp(
      (req, res) => {
        if (closing) res.setHeader('Connection', 'close');
        app(req, res);
      },
      { port: config.PORT, host: '0.0.0.0', timeouts: config },
    );
    log().info({ port }, 'API listening');

    return {
      port,
      server,
      app,
      apiKeys: ctx.stores.apiKeys,
      defaultTeamId: ctx.defaultTeamId,
      // the server answers and Redis answers PING
      ready: async () => (await fetch(`http://127.0.0.1:${port}/ready`)).ok,
      async close() {
        // Stop accepting, let in-flight requests finish, then close Redis. Keep-alive connections
        // that go idle after their last in-flight response would otherwise hold close() open until
        // keepAliveTimeout: answer with `Connection: close` from now on and sweep idle sockets.
        closing = true;
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const hardStop = setTimeout(() => server.closeAllConnections(), SHUTDOWN_DRAIN_MS);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        clearInterval(sweep);
        clearTimeout(hardStop);
        await ctx.requestLog?.close();
      },
    };
  },
);

/**
 * The small HTTP server every process runs: /health (alive), /ready (its checks pass, e.g. Redis
 * reachable) and /metrics (Prometheus text). The API also answers /health on its own port.
 */
import type { RequestListener } from 'node:http';
import { listenHttp, type HttpServerTimeouts } from './http-server.js';
import { metrics, registry } from './metrics.js';
import { log } from './logger.js';

export type ReadinessCheck = () => Promise<boolean>;

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(opts: {
  port: number;
  host?: string;
  ready: ReadinessCheck;
  /** The process's HTTP timeouts (its configuration: metricsEnv includes them). */
  timeouts: HttpServerTimeouts;
}): Promise<HealthServer> {
  const handler: RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (path === '/health') return send(200, JSON.stringify({ status: 'ok' }));
    if (path === '/ready') {
      opts
        .ready()
        .then((ok) => send(ok ? 200 : 503, JSON.stringify({ status: ok ? 'ready' : 'not_ready' })))
        .catch(() => send(503, JSON.stringify({ status: 'not_ready' })));
      return;
    }
    if (path === '/metrics') {
      // petrel_ready: an alert sees a process that answers scrapes but cannot work.
      opts
        .ready()
        .catch(() => false)
        .then((ok) => metrics.ready().set(ok ? 1 : 0))
        .then(() => registry.metrics())
        .then((text) => send(200, text, registry.contentType))
        .catch((err: unknown) => {
          log().error({ err }, 'metrics collection failed');
          send(500, '');
        });
      return;
    }
    send(404, JSON.stringify({ statusCode: 404, name: 'not_found', message: 'Not found' }));
  };
  const { server, port } = await listenHttp(handler, {
    port: opts.port,
    host: opts.host ?? '127.0.0.1',
    timeouts: opts.timeouts,
  });
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

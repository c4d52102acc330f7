/**
 * e2e harness: a real redis-server, a real SMTP sink and the whole Petrel stack (API, send
 * workers, scheduler) started in-process from source, with the official `resend` SDK as client.
 */
import { randomBytes } from 'node:crypto';
import { Resend } from 'resend';
import {
  startRedis,
  startSmtpSink,
  uniquePrefix,
  type SinkPlan,
  type SmtpSink,
  type TestRedis,
} from '@petrel/testing';
import { initLogger, Lifecycle } from '@petrel/observability';
import { loadPetrelConfig, startAllInOne } from '../../apps/petrel/src/index.js';

export interface Stack {
  redis: TestRedis;
  sink: SmtpSink;
  resend: Resend;
  key: string;
  baseUrl: string;
  prefix: string;
  metricsUrl: string;
  /** Every route of the API's router: method + path pattern (e.g. `GET /emails/:id`). */
  routes: { method: string; path: string }[];
  /** Raw HTTP helper with the bootstrap key (for what the SDK cannot send). */
  http(
    path: string,
    init?: RequestInit & { key?: string | null },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

export async function startStack(
  opts: { env?: Record<string, string>; plan?: SinkPlan; redis?: TestRedis } = {},
): Promise<Stack> {
  initLogger({ level: 'silent', name: 'e2e' });
  const redis = opts.redis ?? (await startRedis());
  const sink = await startSmtpSink(opts.plan ? { plan: opts.plan } : {});
  const prefix = uniquePrefix('e2e');
  const key = `re_test_${randomBytes(12).toString('hex')}`;
  const lifecycle = new Lifecycle();
  const config = loadPetrelConfig({
    REDIS_URL: redis.url,
    SMTP_URL: sink.url,
    PORT: '0',
    METRICS_PORT: '0',
    BOOTSTRAP_API_KEY: key,
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    WORKER_CONCURRENCY: '20',
    SMTP_POOL_SIZE: '5',
    SMTP_CONNECTION_TIMEOUT_MS: '3000',
    SMTP_SOCKET_TIMEOUT_MS: '5000',
    RETRY_SCHEDULE_S: '1,1,1',
    RETRY_TIME_SCALE: '0.2',
    ...opts.env,
  });
  const started = await startAllInOne(config, lifecycle);
  const baseUrl = `http://127.0.0.1:${started.apiPort}`;
  const resend = new Resend(key, { baseUrl });
  return {
    redis,
    sink,
    resend,
    key,
    baseUrl,
    prefix,
    metricsUrl: `http://127.0.0.1:${started.metricsPort}/metrics`,
    routes: listRoutes(started.apiApp),
    async http(path, init = {}) {
      const { key: k = key, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (k !== null) headers.set('authorization', `Bearer ${k}`);
      if (rest.body !== undefined && !headers.has('content-type'))
        headers.set('content-type', 'application/json');
      const res = await fetch(`${baseUrl}${path}`, { ...rest, headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      return { status: res.status, body, headers: res.headers };
    },
    async stop() {
      await lifecycle.stop('test done');
      await sink.stop();
      if (!opts.redis) await redis.stop();
    },
  };
}

/** A valid email object for the batch and single endpoints (wire shape). */
export function email(i: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from: 'Acme <sender@acme.test>',
    to: [`user${i}@example.test`],
    subject: `Hello ${i}`,
    html: `<p>Hello <b>number ${i}</b></p>`,
    ...over,
  };
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

/** Walks an Express 5 app's router (and nested routers) for its routes. */
function listRoutes(app: unknown): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const walk = (stack: RouterLayer[] | undefined): void => {
    for (const layer of stack ?? []) {
      if (layer.route) {
        for (const [m, on] of Object.entries(layer.route.methods))
          if (on && m !== '_all') out.push({ method: m.toUpperCase(), path: layer.route.path });
      } else walk(layer.handle?.stack);
    }
  };
  walk((app as { router?: { stack?: RouterLayer[] } }).router?.stack);
  return out;
}

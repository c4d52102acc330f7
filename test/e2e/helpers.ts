/**
 * e2e harness: a real redis-server, a real SMTP sink and the whole Petrel stack (API, send
 * workers, scheduler) started in-process from source, with the official `resend` SDK as client.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Queue } from 'bullmq';
import { Resend } from 'resend';
import { ApiKeysStore, EVENTS_STREAM_FIELD, Keys, SEND_GROUP_FIELD, type RedisClient } from '@petrel/store';
import { openRuntime } from '@petrel/runtime';
import { sendGroupJobId, type EmailEvent, type TeamEvent } from '@petrel/contracts';
import {
  freePort,
  startDnsServer,
  startNodeProcess,
  startRedis,
  startSmtpSink,
  startSmtpSinkProcess,
  uniquePrefix,
  waitUntil,
  type NodeProcess,
  type SinkPlan,
  type SmtpSink,
  type SmtpSinkOptions,
  type SmtpSinkProcess,
  type TestDnsServer,
  type TestRedis,
  type TestRedisCluster,
} from '@petrel/testing';
import { initLogger, Lifecycle } from '@petrel/observability';
import { loadPetrelConfig, startAllInOne } from '../../apps/petrel/src/index.js';

export interface Stack {
  /** The Redis the stack runs on: one server, or a cluster (`redis+cluster://` URL). */
  redis: TestRedis | TestRedisCluster;
  sink: SmtpSink;
  resend: Resend;
  key: string;
  baseUrl: string;
  prefix: string;
  metricsUrl: string;
  /** Ports of the stack's SMTP servers by name (`submission`, `submission-tls`, …). */
  smtpPorts: Record<string, number>;
  /** Every route of the API's router: method + path pattern (e.g. `GET /emails/:id`). */
  routes: { method: string; path: string }[];
  /** Raw HTTP helper with the bootstrap key (for what the SDK cannot send). */
  http(
    path: string,
    init?: RequestInit & { key?: string | null },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /**
   * Resolves once none of these emails can be sent (again): the send jobs of each (its
   * request's group job and any job of its own) are over —
   * completed (BullMQ then removes it), failed, or removed by a cancel — so no attempt of it is
   * waiting, delayed or running. The sink records a message before it answers 250 and the
   * worker ends a job only after that answer, so every copy of these emails the stack will
   * ever send is in the sink by then: what a "nothing more arrives" check waits for.
   */
  settled(ids: readonly string[], timeoutMs?: number): Promise<void>;
  /**
   * The same for everything accepted so far, ids known or not: no send lane holds a job that
   * is waiting, delayed, prioritized or active. Proves that a request answered before this call
   * (a refused batch, an idempotent replay) sent nothing the sink does not have already.
   */
  drained(timeoutMs?: number): Promise<void>;
  /**
   * Every event published on the teams' events streams (what the webhook dispatcher reads),
   * oldest first per team; `prefix` keeps only those whose type starts with it (`contact.`).
   */
  teamEvents(prefix?: string): Promise<(EmailEvent | TeamEvent)[]>;
  /**
   * An email's send job as BullMQ counts it: the runs it started and the attempts it spent
   * (`attemptsMade`, what the retry ladder reads); null once the job is gone.
   */
  sendJob(emailId: string): Promise<{ attemptsStarted: number; attemptsMade: number } | null>;
  /**
   * The test's own command connection to the stack's Redis (no key prefix: name keys with
   * `keys`), for reading and seeding what the API does not show; `stop()` closes it.
   */
  admin: RedisClient;
  /** The stack's key builder (its REDIS_KEY_PREFIX). */
  keys: Keys;
  /** The team of the bootstrap key (`key`): the stack's one team when it starts. */
  teamId: string;
  stop(): Promise<void>;
}

/** Job states from which a job (a send, a webhook delivery) can still make an attempt. */
export const PENDING_JOB_STATES = [
  'waiting',
  'delayed',
  'prioritized',
  'active',
  'waiting-children',
] as const;
const PENDING: ReadonlySet<string> = new Set(PENDING_JOB_STATES);

export interface StackOptions {
  env?: Record<string, string>;
  plan?: SinkPlan;
  /** Run on this Redis (a server or a cluster) instead of a fresh server; the caller stops it. */
  redis?: TestRedis | TestRedisCluster;
  /** Sink options besides the plan, e.g. `{ smtpUtf8: false }`. */
  sink?: Omit<SmtpSinkOptions, 'plan'>;
  /** Extensions of the all-in-one's components (e.g. the webhook resolver). */
  ext?: Parameters<typeof startAllInOne>[2];
}

/**
 * The stack of one test file (or of one describe block): call it at the top level of either. The
 * returned object is filled in with the started stack before the first test there, and the stack
 * stops after the last, so the tests (and scenarios given `() => stack`) use it as they would a
 * `startStack()` result.
 */
export function fileStack(opts: StackOptions = {}): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    Object.assign(stack, await startStack(opts));
  });
  afterAll(async () => {
    // undefined when the start failed: the start's error is the one to read
    await stack.stop?.();
  });
  return stack;
}

/**
 * A local authoritative DNS server and the file's stack resolving through it (DNS_SERVERS): both
 * start before the file's tests (the server first: `env` may read it) and stop after them, filled
 * in as fileStack's stack is.
 */
export function fileDnsStack(env: (dns: TestDnsServer) => Record<string, string> = () => ({})): {
  stack: Stack;
  dns: TestDnsServer;
} {
  const stack = {} as Stack;
  const dns = {} as TestDnsServer;
  beforeAll(async () => {
    Object.assign(dns, await startDnsServer());
    Object.assign(stack, await startStack({ env: { DNS_SERVERS: dns.address, ...env(dns) } }));
  });
  afterAll(async () => {
    // undefined when a start failed: its error is the one to read
    await stack.stop?.();
    await dns.stop?.();
  });
  return { stack, dns };
}

/**
 * The file's stack in direct delivery (DELIVERY_MODE=direct) through fileDnsStack, with one MX
 * sink on 127.0.0.3 at DIRECT_SMTP_PORT: the sink starts first, `zone` publishes the test's
 * records once both servers are up, and all stop after the file's tests.
 */
export function fileDirectStack(
  zone: (dns: TestDnsServer, mx: SmtpSink) => void,
  env: Record<string, string> = {},
): { stack: Stack; dns: TestDnsServer; mx: SmtpSink } {
  const mx = {} as SmtpSink;
  beforeAll(async () => {
    Object.assign(mx, await startSmtpSink({ host: '127.0.0.3' }));
  });
  afterAll(async () => {
    await mx.stop?.();
  });
  const { stack, dns } = fileDnsStack((server) => {
    zone(server, mx);
    return {
      DELIVERY_MODE: 'direct',
      DIRECT_SMTP_PORT: String(mx.port),
      DIRECT_HELO_NAME: 'mta.e2e.test',
      ...env,
    };
  });
  return { stack, dns, mx };
}

/**
 * The id of what an SDK call created, failing the test with the call's error otherwise; given
 * `object`, the answer must be exactly Resend's `{ object, id }`.
 */
export async function createdId(
  answer: PromiseLike<{ data: { id: string } | null; error: unknown }>,
  object?: string,
): Promise<string> {
  const { data, error } = await answer;
  expect(error).toBeNull();
  if (object !== undefined) expect(data).toEqual({ object, id: expect.any(String) });
  return data!.id;
}

/** The data of an SDK answer, failing the test with the answer's error otherwise (`what` names the call). */
export function ok<T>(answer: { data: T | null; error: unknown }, what?: string): T {
  expect(answer.error, what).toBeNull();
  return answer.data!;
}

/** Resolves once the email `id` of `on`'s team reads `wanted` as its last_event (GET /emails/:id). */
export async function lastEvent(
  on: { resend: Resend },
  id: string,
  wanted: string,
  timeoutMs = 20_000,
): Promise<void> {
  await waitUntil(async () => (await on.resend.emails.get(id)).data?.last_event === wanted, {
    timeoutMs,
    message: `email ${id} to be ${wanted}`,
  });
}

/** Sends one plain-text email (its subject is its text) through `on`'s SDK client; its id. */
export const sendPlain = (
  on: { resend: Resend },
  from: string,
  to: string | string[],
  subject: string,
): Promise<string> => createdId(on.resend.emails.send({ from, to, subject, text: subject }));

/**
 * A team of its own (`name`) on the stack's Redis, next to the stack's, and a key of it: another
 * tenant, as the API sees it, for the cross-team tests.
 */
export async function otherTeam(
  stack: Pick<Stack, 'admin' | 'keys' | 'baseUrl'>,
  name: string,
  permission: 'full_access' | 'sending_access' = 'full_access',
): Promise<{ teamId: string; key: string; resend: Resend }> {
  const store = new ApiKeysStore(stack.admin, stack.keys);
  const teamId = await store.createTeam(name);
  const key = (await store.create(teamId, { name, permission })).token;
  return { teamId, key, resend: new Resend(key, { baseUrl: stack.baseUrl }) };
}

let addressSeq = 0;
/** A recipient address no other test of the file uses: `${tag}-N@example.test`. */
export const uniqueAddress = (tag: string): string => `${tag}-${++addressSeq}@example.test`;

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  initLogger({ level: 'silent', name: 'e2e' });
  const redis = opts.redis ?? (await startRedis());
  const sink = await startSmtpSink({ ...opts.sink, ...(opts.plan && { plan: opts.plan }) });
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
    // free ports: stacks run side by side
    SMTP_SUBMISSION_PORT: '0',
    SMTP_SUBMISSION_TLS_PORT: '0',
    SMTP_INBOUND_PORT: '0',
    // the receiving domain of the inbound scenarios and team-resources.ts (the default team's)
    INBOUND_DOMAINS: 'in.e2e.test',
    // no SPF/DKIM/DMARC lookups (they would leave the machine): inbound-auth.e2e.test.ts turns
    // them on against its local DNS server
    INBOUND_AUTH: 'off',
    ...opts.env,
  });
  const started = await startAllInOne(config, lifecycle, opts.ext);
  const baseUrl = `http://127.0.0.1:${started.apiPort}`;
  const resend = new Resend(key, { baseUrl });

  // The test's own view of the stack, from the same composition root as the stack's processes
  // (a runtime of its own: its connection opens on first use), e.g. the send queues' every shard
  // of every lane, in the stack's layouts.
  const view = openRuntime(config, 'e2e-view');
  const lanes = (): readonly Queue[] => view.queues.send.queues;

  const keys = new Keys(prefix);
  async function teamEvents(typePrefix = ''): Promise<(EmailEvent | TeamEvent)[]> {
    const r = view.redis;
    const out: (EmailEvent | TeamEvent)[] = [];
    for (const teamId of await r.smembers(keys.teams())) {
      for (const [, fields] of await r.xrange(keys.events(teamId), '-', '+')) {
        const event = JSON.parse(fields[fields.indexOf(EVENTS_STREAM_FIELD) + 1]!) as EmailEvent | TeamEvent;
        if (event.type.startsWith(typePrefix)) out.push(event);
      }
    }
    return out;
  }

  const [teamId] = await view.redis.smembers(keys.teams());
  return {
    redis,
    sink,
    teamEvents,
    admin: view.redis,
    keys,
    teamId: teamId!,
    async sendJob(emailId) {
      const jobs = await Promise.all(lanes().map((q) => q.getJob(emailId)));
      const job = jobs.find((j) => j !== undefined && j !== null);
      return job ? { attemptsStarted: job.attemptsStarted, attemptsMade: job.attemptsMade } : null;
    },
    resend,
    key,
    baseUrl,
    prefix,
    metricsUrl: `http://127.0.0.1:${started.metricsPort}/metrics`,
    smtpPorts: started.smtpPorts,
    routes: listRoutes(started.apiApp),
    async http(path, init = {}) {
      const { key: k = key, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (k !== null) headers.set('authorization', `Bearer ${k}`);
      // multipart: fetch writes the content type with its boundary
      if (rest.body !== undefined && !(rest.body instanceof FormData) && !headers.has('content-type'))
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
    async settled(ids, timeoutMs = 15_000) {
      let pending: string[] = [...ids];
      // an email due at once is sent by its request's group job (named after the group's first
      // email, which its record keeps) unless it was handed a job of its own (retries, waits)
      const teams = await view.redis.smembers(keys.teams());
      const jobIds = new Map<string, string[]>();
      for (const id of pending) {
        const groups = await Promise.all(
          teams.map((t) => view.redis.hget(keys.email(t, id), SEND_GROUP_FIELD)),
        );
        const group = groups.find((g) => g !== null && g !== undefined);
        jobIds.set(id, group ? [id, sendGroupJobId(group)] : [id]);
      }
      await waitUntil(
        async () => {
          const states = await Promise.all(
            pending.map(async (id) => {
              const perLane = await Promise.all(
                lanes().flatMap((q) => jobIds.get(id)!.map((jobId) => q.getJobState(jobId))),
              );
              return perLane.some((st) => PENDING.has(st));
            }),
          );
          pending = pending.filter((_, i) => states[i]);
          return pending.length === 0;
        },
        { timeoutMs, message: `the send jobs of ${ids.length} emails to end` },
      );
    },
    async drained(timeoutMs = 15_000) {
      await waitUntil(
        async () => {
          const counts = await Promise.all(lanes().map((q) => q.getJobCounts(...PENDING_JOB_STATES)));
          return counts.every((c) => Object.values(c).every((n) => n === 0));
        },
        { timeoutMs, message: 'every send lane to hold no pending job' },
      );
    },
    async stop() {
      // After a failover a QUIT can wait on a node that is gone: the runtime bounds it
      await view.close();
      await lifecycle.stop('test done');
      // A closer left behind is a shutdown that hangs in production too: say which one.
      if (lifecycle.timedOut.length)
        console.warn(`stack stop: closers timed out: ${lifecycle.timedOut.join(', ')}`);
      await sink.stop();
      if (!opts.redis) await redis.stop();
    },
  };
}

/**
 * One app on its own, as `npm run start:<app>` runs it (its build, apps/<app>/dist/main.js: the
 * test command builds first), resolved once its /ready answers: the API's on PORT, the others' on
 * METRICS_PORT, a free one unless `env` names it.
 */
export async function startApp(
  app: 'api' | 'worker' | 'scheduler' | 'smtp' | 'webhooks',
  env: Record<string, string>,
): Promise<NodeProcess> {
  const withMetrics = { METRICS_PORT: String(await freePort()), ...env };
  const readyPort = app === 'api' ? env.PORT : withMetrics.METRICS_PORT;
  if (readyPort === undefined) throw new Error('startApp: the API needs a PORT');
  return startNodeProcess(resolve(__dirname, '../../apps', app, 'dist/main.js'), {
    env: withMetrics,
    ready: async () => (await fetch(`http://127.0.0.1:${readyPort}/ready`)).ok,
  });
}

/**
 * The API as its own process (startApp) on a free port, over the Redis and key prefix `common`
 * names, with a bootstrap key of its own and its own URL as PUBLIC_URL; `cleanups` (see
 * cleanupsAfterEach) gets its closer.
 */
export async function startApiApp(
  common: Record<string, string>,
  cleanups: (() => Promise<unknown>)[],
): Promise<{ api: NodeProcess; apiUrl: string; key: string; resend: Resend }> {
  const key = `re_test_${randomBytes(12).toString('hex')}`;
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const api = await startApp('api', {
    ...common,
    PORT: String(apiPort),
    METRICS_PORT: '0',
    BOOTSTRAP_API_KEY: key,
    PUBLIC_URL: apiUrl,
  });
  cleanups.push(() => api.stop());
  return { api, apiUrl, key, resend: new Resend(key, { baseUrl: apiUrl }) };
}

export interface ProcessBase {
  redis: TestRedis;
  sink: SmtpSinkProcess;
  prefix: string;
}

/**
 * What apps run as child processes (startApp) share: a redis-server with the production settings
 * (startRedis: AOF everysec, noeviction), an SMTP sink in its own process (so a test can kill
 * either) and a fresh key prefix; `cleanups` (see cleanupsAfterEach) gets their closers.
 */
export async function startProcessBase(
  tag: string,
  sink: Parameters<typeof startSmtpSinkProcess>[0],
  cleanups: (() => Promise<unknown>)[],
): Promise<ProcessBase> {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const sinkProcess = await startSmtpSinkProcess(sink);
  cleanups.push(() => sinkProcess.stop());
  return { redis, sink: sinkProcess, prefix: uniquePrefix(tag) };
}

/**
 * A send worker as its own process (startApp) with `concurrency` parallel sends, sized for chaos
 * tests: a killed worker's jobs are taken over within seconds (production: a 30 s lock) and its
 * retries come a second apart; `env` (the Redis, the SMTP_URL, …) adds to that or overrides it.
 * `cleanups` (see cleanupsAfterEach) gets its closer.
 */
export async function startWorkerApp(
  env: Record<string, string>,
  concurrency: number,
  cleanups: (() => Promise<unknown>)[],
): Promise<NodeProcess> {
  const worker = await startApp('worker', {
    WORKER_CONCURRENCY: String(concurrency),
    SMTP_POOL_SIZE: String(concurrency),
    WORKER_LOCK_DURATION_MS: '4000',
    WORKER_STALLED_INTERVAL_MS: '2000',
    RETRY_SCHEDULE_S: '1,1,1,1,1',
    RETRY_TIME_SCALE: '0.5',
    ...env,
  });
  cleanups.push(() => worker.stop());
  return worker;
}

/**
 * What each test of the enclosing describe (or file) started and must stop: push a closer; after
 * each test they run, last pushed first, and one that fails does not keep the others from running.
 */
export function cleanupsAfterEach(): (() => Promise<unknown>)[] {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });
  return cleanups;
}

const CLI = resolve(__dirname, '../../apps/petrel/dist/cli.js');
const run = promisify(execFile);

/** The built CLI (`npm run petrel -- …`) against the stack's Redis and key prefix: `cli('teams', 'list')`. */
export function petrelCli(stack: Pick<Stack, 'redis' | 'prefix'>) {
  return (...args: string[]) =>
    run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, REDIS_URL: stack.redis.url, REDIS_KEY_PREFIX: stack.prefix },
    });
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
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

/** Walks an Express 5 app's router (and nested routers) for its routes. */
function listRoutes(app: unknown): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const walk = (stack: RouterLayer[] | undefined): void => {
    for (const layer of stack ?? []) {
      if (layer.route) {
        // a route may serve several paths (`router.get(['/a', '/a/*rest'], …)`)
        const paths = [layer.route.path].flat();
        for (const [m, on] of Object.entries(layer.route.methods))
          if (on && m !== '_all') for (const path of paths) out.push({ method: m.toUpperCase(), path });
      } else walk(layer.handle?.stack);
    }
  };
  walk((app as { router?: { stack?: RouterLayer[] } }).router?.stack);
  return out;
}

/**
 * Webhooks on one Redis node: the shared scenarios (scenarios/webhooks.ts) on an all-in-one
 * stack that may deliver to loopback receivers; the SSRF corpus (R17) on a stack that may not;
 * a dispatcher process killed with kill -9 mid-delivery.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, newSigningSecret, newWebhookEndpoint, webhookMessageId } from '@petrel/core';
import { ApiKeysStore, EVENTS_STREAM_FIELD, Keys, WebhooksStore, createRedis } from '@petrel/store';
import {
  startHttpReceiver,
  startRedis,
  uniquePrefix,
  waitUntil,
  type NodeProcess,
  type TestRedis,
} from '@petrel/testing';
import { startApp, startStack, type Stack, fileStack } from './helpers.js';
import { WEBHOOK_TEST_ENV, webhookScenarios } from './scenarios/webhooks.js';

const stack = fileStack({ env: WEBHOOK_TEST_ENV });

webhookScenarios(() => stack);

/**
 * R17: the SSRF corpus, with WEBHOOK_ALLOW_PRIVATE_NETWORKS off. Every URL aims at a canary TCP
 * listener on 127.0.0.1 (or at another private address) under some spelling: refused at creation
 * (422 naming `endpoint`), and — for the same URLs written straight into Redis, as rows from
 * before a policy change or a tampered store would be — refused again at delivery time. The
 * canary sees 0 connections and the dispatcher never picks an address to connect to.
 */
describe('R17: SSRF', () => {
  let ssrf: Stack;
  let canary: Server;
  let connections = 0;
  const connects: string[] = [];
  let port = 0;
  /** The injected resolvers: names of the corpus; the rebinding one answers public at creation only. */
  const answers: Record<string, string[]> = {
    'evil.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'v6.test': ['::1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'meta.test': ['169.254.169.254'],
  };
  const resolver =
    (stage: 'api' | 'dispatcher') =>
    async (name: string): Promise<string[]> => {
      if (name === 'rebind.test') return stage === 'api' ? ['93.184.216.34'] : ['127.0.0.1'];
      const a = answers[name];
      if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return a;
    };

  beforeAll(async () => {
    canary = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    port = (canary.address() as AddressInfo).port;
    ssrf = await startStack({
      env: { ...WEBHOOK_TEST_ENV, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
      ext: {
        api: { webhookResolver: resolver('api') },
        webhooks: {
          resolver: resolver('dispatcher'),
          onConnect: (t) => connects.push(`${t.host}→${t.address}`),
        },
      },
    });
  });
  afterAll(async () => {
    await ssrf?.stop();
    await new Promise((r) => canary?.close(r));
  });

  const corpus = (): string[] => [
    `http://127.0.0.1:${port}/`,
    `https://127.0.0.1:${port}/`,
    `http://localhost:${port}/`,
    `http://LOCALHOST:${port}/`,
    `http://hooks.localhost:${port}/`,
    `http://[::1]:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://127.1:${port}/`,
    `http://127.0.0.1.:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://017700000001:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://127.000.000.001:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${port}/`,
    `http://[::127.0.0.1]:${port}/`,
    `http://[64:ff9b::7f00:1]:${port}/`,
    `http://[2002:7f00:1::]:${port}/`,
    `http://evil.test:${port}/`,
    `http://mixed.test:${port}/`,
    `http://v6.test:${port}/`,
    `http://mapped.test:${port}/`,
    `http://meta.test/latest/meta-data/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata.internal/',
    'http://printer.local/',
    'http://10.0.0.1/',
    'http://10.255.255.254/',
    'http://172.16.0.1/',
    'http://172.31.255.254/',
    'http://192.168.0.1/',
    'http://192.168.255.254/',
    'http://100.64.0.1/',
    'http://100.127.255.254/',
    'http://[fc00::1]/',
    'http://[fd12:3456:789a::1]/',
    'http://[fe80::1]/',
    'http://[::]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://198.18.0.1/',
    'http://192.0.0.8/',
  ];

  it('refuses all of the corpus at creation (422 naming endpoint)', async () => {
    const urls = corpus();
    expect(urls.length).toBeGreaterThanOrEqual(40);
    for (const endpoint of urls) {
      const r = await ssrf.resend.webhooks.create({ endpoint, events: ['contact.created'] });
      expect(r.error, endpoint).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: expect.stringMatching(/^endpoint: /),
      });
    }
    // a rebinding name looks public when the webhook is created…
    const rebind = await ssrf.resend.webhooks.create({
      endpoint: `http://rebind.test:${port}/`,
      events: ['contact.created'],
    });
    expect(rebind.error).toBeNull();
    // …and the unknown name is refused
    const unknown = await ssrf.resend.webhooks.create({
      endpoint: 'http://nowhere.test/',
      events: ['contact.created'],
    });
    expect(unknown.error).toMatchObject({
      statusCode: 422,
      message: expect.stringContaining('could not resolve'),
    });
    expect(connections).toBe(0);
  });

  it('refuses them again at delivery time for rows written straight into Redis; the canary sees 0 connections', async () => {
    const redis = createRedis(ssrf.redis.url);
    const keys = new Keys(ssrf.prefix);
    const store = new WebhooksStore(redis, keys, 86_400_000);
    const apiKeys = new ApiKeysStore(redis, keys);
    const teamId = await apiKeys.ensureDefaultTeam();
    const ids: string[] = [];
    try {
      for (const endpoint of corpus()) {
        const id = newId();
        ids.push(id);
        await store.create(
          teamId,
          newWebhookEndpoint({
            id,
            endpoint,
            events: ['contact.created'],
            created_at: new Date().toISOString(),
            secret: newSigningSecret(),
          }),
        );
      }
      const rebind = (await ssrf.resend.webhooks.list({ limit: 100 })).data!.data.find((w) =>
        w.endpoint.includes('rebind'),
      )!;
      ids.push(rebind.id);
      expect((await ssrf.resend.contacts.create({ email: 'ssrf@hooks.test' })).error).toBeNull();
      await waitUntil(
        async () => {
          for (const id of ids) {
            const events = await store.listEvents(teamId, id, { limit: 10 });
            if (events?.items[0]?.status !== 'failed') return false;
          }
          return true;
        },
        { timeoutMs: 20_000, message: `every one of ${ids.length} deliveries refused` },
      );
      for (const id of ids) {
        const [event] = (await store.listEvents(teamId, id, { limit: 1 }))!.items;
        const attempts = await store.attempts(teamId, id, event!.id);
        expect(attempts, id).toHaveLength(1); // refused: never retried
        expect(attempts[0]).toMatchObject({ http_status_code: 0 });
        expect(attempts[0]!.response).toMatch(/private or reserved|could not resolve|must be/);
      }
      expect(connects).toEqual([]);
      expect(connections).toBe(0);
    } finally {
      await redis.quit();
    }
  });
});

/**
 * The dispatcher killed with kill -9 while deliveries are in flight (its own process, from
 * apps/webhooks/dist — run the build first): a second dispatcher takes the stalled jobs over,
 * every event is delivered, and each retry carries the message id of the attempt that died.
 */
describe('kill -9 of the dispatcher mid-delivery', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const dispatcher = (prefix: string): Promise<NodeProcess> =>
    startApp('webhooks', {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_LOCK_DURATION_MS: '2000',
      WEBHOOK_STALLED_INTERVAL_MS: '1000',
      WEBHOOK_CLAIM_IDLE_MS: '1000',
      ...WEBHOOK_TEST_ENV,
    });

  it('no event is lost and the retry carries the same svix-id', async () => {
    const prefix = uniquePrefix('whkill');
    const keys = new Keys(prefix);
    const conn = createRedis(redis.url);
    let killed = false;
    const rx = await startHttpReceiver({
      respond: () => (killed ? { status: 200 } : { status: 200, delayMs: 60_000 }),
    });
    try {
      const store = new WebhooksStore(conn, keys, 86_400_000);
      const secret = newSigningSecret();
      const webhookId = newId();
      await store.create(
        'team-1',
        newWebhookEndpoint({
          id: webhookId,
          endpoint: rx.url,
          events: ['contact.created'],
          created_at: new Date().toISOString(),
          secret,
        }),
      );
      const first = await dispatcher(prefix);
      const eventIds: string[] = [];
      for (let i = 0; i < 20; i++) {
        const id = newId();
        eventIds.push(id);
        const event = {
          id,
          type: 'contact.created',
          created_at: new Date().toISOString(),
          teamId: 'team-1',
          data: { i },
        };
        await conn.xadd(keys.events('team-1'), '*', EVENTS_STREAM_FIELD, JSON.stringify(event));
      }
      // the first attempts are in flight (the receiver holds them): kill the dispatcher
      const inFlight = await rx.waitFor(10, 15_000);
      first.kill('SIGKILL');
      await first.exited();
      killed = true;
      const beforeRestart = rx.requests.length; // none of those was answered
      const second = await dispatcher(prefix);
      try {
        const msgIds = eventIds.map((id) => webhookMessageId(id));
        await waitUntil(
          () => msgIds.every((m) => rx.requests.slice(beforeRestart).some((r) => r.headers['svix-id'] === m)),
          { timeoutMs: 30_000, message: 'every event delivered after the restart' },
        );
        await waitUntil(
          async () => {
            for (const id of eventIds)
              if ((await store.getEvent('team-1', webhookId, id))?.status !== 'success') return false;
            return true;
          },
          { timeoutMs: 15_000, message: 'every event logged as delivered' },
        );
        // each attempt that died is retried under its own message id, signed afresh
        const after = rx.requests.slice(beforeRestart);
        for (const r of inFlight) {
          const retry = after.find((a) => a.headers['svix-id'] === r.headers['svix-id']);
          expect(retry, String(r.headers['svix-id'])).toBeDefined();
          expect(retry!.body).toBe(r.body);
          expect(() =>
            new SvixWebhook(secret).verify(retry!.body, {
              'svix-id': String(retry!.headers['svix-id']),
              'svix-timestamp': String(retry!.headers['svix-timestamp']),
              'svix-signature': String(retry!.headers['svix-signature']),
            }),
          ).not.toThrow();
        }
      } finally {
        await second.stop();
      }
    } finally {
      await rx.stop();
      await conn.quit();
    }
  }, 90_000);
});

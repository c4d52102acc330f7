/**
 * The composition root against a real Redis (a Redis Cluster in the `integration-cluster`
 * project): a process opens a connection only for what it asks, builds each part once, reads
 * each secret once, refuses a part its configuration cannot build (naming the variable), accepts
 * an email through the one accept path, and leaves no connection behind when closed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { acceptEmails, createDomain, createDomainSchema } from '@petrel/core';
import { dataEnv, domainsEnv, limitsEnv, loadConfig, queueEnv, redisEnv } from '@petrel/config';
import { uniquePrefix } from '@petrel/testing';
import { useStoreRedis } from '../../store/src/redis.fixture.js';
import { openRuntime, partStart, type Runtime } from './index.js';

const fx = useStoreRedis('runtime');
const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

/** A runtime as a process of `shape`'s variables would open it, under a fresh prefix. */
function runtime(name: string, env: Record<string, string> = {}, shape: object = acceptingShape) {
  const rt = openRuntime(configOf(env, shape), name);
  opened.push(rt);
  return rt;
}
const acceptingShape = { ...redisEnv, ...dataEnv, ...queueEnv, ...limitsEnv, ...domainsEnv };
const configOf = (env: Record<string, string> = {}, shape: object = acceptingShape) =>
  loadConfig(shape as typeof acceptingShape, {
    REDIS_URL: fx.url,
    REDIS_KEY_PREFIX: uniquePrefix('rt'),
    ENFORCE_VERIFIED_DOMAINS: 'false',
    ...env,
  });

/** The clients connected under `name` (CLIENT LIST of every node). */
async function clientsNamed(name: string): Promise<number> {
  const lists: string[] =
    'nodes' in fx.redis
      ? await Promise.all(fx.redis.nodes('master').map((n) => n.client('LIST') as Promise<string>))
      : [(await fx.redis.client('LIST')) as string];
  return lists
    .join('\n')
    .split('\n')
    .filter((l) => l.includes(` name=${name} `)).length;
}

describe('runtime', () => {
  it('opens the command connection on first use only, builds each store once, and closes it', async () => {
    const name = `t${Date.now().toString(36)}`;
    const rt = runtime(name);
    expect(await clientsNamed(`petrel-${name}`)).toBe(0);
    const teams = rt.stores.apiKeys;
    expect(rt.stores.apiKeys).toBe(teams);
    await teams.ensureDefaultTeam();
    // every store and queue shares the one command connection
    await rt.stores.templates.list(await teams.ensureDefaultTeam(), { limit: 1 });
    await rt.queues.send.ready();
    expect(rt.queues.send).toBe(rt.queues.send);
    expect(await clientsNamed(`petrel-${name}`)).toBeGreaterThanOrEqual(1);
    expect(await rt.ready()).toBe(true);
    await rt.close();
    opened.splice(0);
    expect(await clientsNamed(`petrel-${name}`)).toBe(0);
  });

  it('reads each shared secret once per process, and two processes agree on it', async () => {
    const a = runtime('secret-a');
    const b = openRuntime(a.config, 'secret-b');
    opened.push(b);
    expect(a.secret('unsubscribe')).toBe(a.secret('unsubscribe'));
    const [fromA, fromB] = await Promise.all([a.secret('unsubscribe'), b.secret('unsubscribe')]);
    expect(fromA).toBe(fromB);
    expect(fromA).toBe(await fx.redis.get(a.keys.unsubscribeSecret()));
  });

  it('reads the domain key secret only when a key is first sealed', async () => {
    const rt = runtime('domains');
    const teamId = await rt.stores.apiKeys.ensureDefaultTeam();
    expect(await rt.stores.domains.list(teamId, { limit: 10 })).toEqual({ items: [], hasMore: false });
    expect(await fx.redis.exists(rt.keys.domainKeySecret())).toBe(0);
    const created = await createDomain(
      { teamId, input: createDomainSchema.parse({ name: 'acme.test' }) },
      {
        domains: rt.stores.domains,
        targets: { mxHost: 'mx.acme.test', spf: 'v=spf1 -all' },
        clock: Date,
        dkim: { selector: 'petrel', ed25519Selector: 'petrel-ed25519', ed25519: false },
      },
    );
    expect(created.name).toBe('acme.test');
    expect(await fx.redis.exists(rt.keys.domainKeySecret())).toBe(1);
    expect((await rt.stores.domains.forSending(teamId, 'acme.test'))?.keys).toHaveLength(1);
  });

  it('refuses a part whose variable this process does not parse, naming the variable', () => {
    const rt = runtime('partial', {}, { ...redisEnv, ...dataEnv });
    expect(() => rt.stores.automationRuns).toThrow(/AUTOMATION_RUN_RETENTION_DAYS/);
    expect(() => rt.preparer()).toThrow(/ENFORCE_VERIFIED_DOMAINS/);
  });

  it('accepts an email through the one accept path: its record and its job', async () => {
    const rt = runtime('accept');
    const teamId = await rt.stores.apiKeys.ensureDefaultTeam();
    const ports = await rt.acceptance();
    expect(await rt.acceptance()).toBe(ports);
    expect(await rt.acceptance({ lockMs: 5_000 })).not.toBe(ports);
    const res = await acceptEmails(
      {
        teamId,
        endpoint: 'single',
        body: { from: 'a@acme.test', to: 'b@example.test', subject: 'hi', text: 'hello' },
        mode: 'strict',
        idempotencyKey: undefined,
        clock: Date,
      },
      ports,
    );
    const { id } = JSON.parse(res.body) as { id: string };
    expect((await rt.stores.emails.get(teamId, id))?.status).toBe('queued');
    expect(await rt.queues.send.queueOf('send', id).getJob(id)).toBeTruthy();
  });
});

describe('partStart', () => {
  /** A part that uses its runtime's command connection, and fails its start when told to. */
  const partOf = (name: string) => {
    const closed: string[] = [];
    const start = partStart(name, `the ${name} part`, async (_config, rt, ext: { fail?: boolean }) => {
      await rt.stores.apiKeys.ensureDefaultTeam();
      if (ext.fail) throw new Error(`${name} cannot start`);
      return { close: async () => void closed.push(name) };
    });
    return { start, closed };
  };

  it('alone: opens a runtime of its own, answers ready by PING, and closes the runtime after its own close', async () => {
    const name = `alone${Date.now().toString(36)}`;
    const { start, closed } = partOf(name);
    const part = await start(configOf());
    expect(await clientsNamed(`petrel-${name}`)).toBeGreaterThanOrEqual(1);
    expect(await part.ready()).toBe(true);
    await part.close();
    expect(closed).toEqual([name]);
    expect(await clientsNamed(`petrel-${name}`)).toBe(0);
  });

  it('on a shared runtime: leaves the runtime open for its owner when it closes', async () => {
    const shared = runtime(`owner${Date.now().toString(36)}`);
    const { start, closed } = partOf('guest');
    const part = await start(shared.config, {}, shared);
    await part.close();
    expect(closed).toEqual(['guest']);
    expect(await shared.ready()).toBe(true);
    expect(await clientsNamed(`petrel-${shared.name}`)).toBeGreaterThanOrEqual(1);
  });

  it('a start that fails closes the runtime it opened and rethrows', async () => {
    const name = `failing${Date.now().toString(36)}`;
    const { start } = partOf(name);
    await expect(start(configOf(), { fail: true })).rejects.toThrow(`${name} cannot start`);
    expect(await clientsNamed(`petrel-${name}`)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import type { TlsRptPolicy } from '@petrel/core';
import { useStoreRedis } from './redis.fixture.js';
import { TlsRptStore } from './tls-rpt.store.js';
import { WarmupStore } from './warmup.store.js';

const fx = useStoreRedis('tls-rpt');

const enforce: TlsRptPolicy = {
  type: 'sts',
  lines: ['version: STSv1', 'mode: enforce'],
  mxHost: ['*.mx.a.test'],
};
const renewed: TlsRptPolicy = {
  type: 'sts',
  lines: ['version: STSv1', 'mode: testing'],
  mxHost: ['*.mx.a.test'],
};

describe('TlsRptStore', () => {
  it('counts sessions per period, domain and policy, and reads them back as the report needs', async () => {
    let now = 10_500;
    const store = new TlsRptStore(fx.redis, fx.keys, {
      periodMs: 1_000,
      flushMs: 60_000,
      clock: { now: () => now },
    });
    store.record('a.test', enforce, { ok: true });
    store.record('a.test', enforce, { ok: true });
    store.record('a.test', enforce, { ok: false, resultType: 'validation-failure', mx: 'rogue.b.test' });
    store.record('a.test', renewed, {
      ok: false,
      resultType: 'certificate-not-trusted',
      mx: 'x.mx.a.test',
      receivingIp: '192.0.2.1',
      sendingIp: '198.51.100.7',
    });
    store.record('c.test', enforce, { ok: true });
    now = 11_200; // the next period
    store.record('a.test', enforce, { ok: true });
    await store.close();

    expect(await store.pendingPeriods(12)).toEqual([10, 11]);
    expect(await store.pendingPeriods(11)).toEqual([10]);
    expect((await store.domains(10)).sort()).toEqual(['a.test', 'c.test']);
    const counts = await store.counts(10, 'a.test');
    const byMode = (mode: string) => counts.policies.find((p) => p.policy.lines.includes(`mode: ${mode}`));
    expect(byMode('enforce')).toEqual({
      policy: enforce,
      successes: 2,
      failures: [{ resultType: 'validation-failure', mx: 'rogue.b.test', count: 1 }],
    });
    expect(byMode('testing')).toEqual({
      policy: renewed,
      successes: 0,
      failures: [
        {
          resultType: 'certificate-not-trusted',
          mx: 'x.mx.a.test',
          receivingIp: '192.0.2.1',
          sendingIp: '198.51.100.7',
          count: 1,
        },
      ],
    });
    expect((await store.counts(11, 'a.test')).policies[0]?.successes).toBe(1);
    // the counters expire on their own
    expect(await fx.redis.pttl(fx.keys.tlsRptCounts(10, 'a.test'))).toBeGreaterThan(0);
  });

  it('adds the counts of later flushes to the same period', async () => {
    const store = new TlsRptStore(fx.redis, fx.keys, {
      periodMs: 1_000,
      flushMs: 60_000,
      clock: { now: () => 20_100 },
    });
    store.record('d.test', enforce, { ok: true });
    await store.flush();
    store.record('d.test', enforce, { ok: true });
    await store.close();
    expect((await store.counts(20, 'd.test')).policies[0]?.successes).toBe(2);
  });

  it('claims each report once until given back, and forgets a finished period', async () => {
    const store = new TlsRptStore(fx.redis, fx.keys, {
      periodMs: 1_000,
      flushMs: 60_000,
      clock: { now: () => 30_100 },
    });
    store.record('e.test', enforce, { ok: true });
    await store.close();
    expect(await store.claim(30, 'e.test')).toBe(true);
    expect(await store.claim(30, 'e.test')).toBe(false);
    await store.release(30, 'e.test');
    expect(await store.claim(30, 'e.test')).toBe(true);
    await store.finish(30);
    expect(await store.pendingPeriods(31)).not.toContain(30);
  });
});

describe('WarmupStore', () => {
  it("keeps the first writer's time as an address's first use", async () => {
    const store = new WarmupStore(fx.redis, fx.keys);
    expect(await store.since('192.0.2.50', 1_000)).toBe(1_000);
    expect(await store.since('192.0.2.50', 5_000)).toBe(1_000);
  });

  it('lets exactly the cap through per address, provider and day, however many take at once', async () => {
    const store = new WarmupStore(fx.redis, fx.keys);
    const taken = await Promise.all(
      Array.from({ length: 20 }, () => store.take('192.0.2.51', 'google', 0, 7, 60_000)),
    );
    expect(taken.filter(Boolean)).toHaveLength(7);
    // another provider, another day: counters of their own
    expect(await store.take('192.0.2.51', 'microsoft', 0, 7, 60_000)).toBe(true);
    expect(await store.take('192.0.2.51', 'google', 1, 7, 60_000)).toBe(true);
    expect(await fx.redis.pttl(fx.keys.warmupCount('192.0.2.51', 'google', 0))).toBeGreaterThan(0);
  });
});

import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedis } from '@petrel/testing';
import { onCluster, useStoreRedis } from './redis.fixture.js';
import { createRedis } from './redis.js';
import { SCRIPTS, defineScripts, execAll, pipeline, transaction } from './scripts.js';
import { CrossSlotError } from './slots.js';

const fx = useStoreRedis('scripts');

describe('the script registry', () => {
  it('every script compiles on Redis and is named petrel<Verb><Noun>', async () => {
    for (const [name, s] of Object.entries(SCRIPTS)) {
      expect(name).toMatch(/^petrel[A-Z][a-zA-Z]+$/);
      expect(await fx.redis.script('LOAD', s.lua)).toMatch(/^[0-9a-f]{40}$/);
    }
  });

  it('registers the scripts as commands of the connection, once', () => {
    const redis = defineScripts(fx.redis);
    expect(defineScripts(redis)).toBe(redis);
    for (const name of Object.keys(SCRIPTS)) expect(typeof (redis as never)[name]).toBe('function');
  });

  it('petrelSetFieldsIfExists writes only to a record that exists', async () => {
    const redis = defineScripts(fx.redis);
    const key = fx.keys.email('t', 'e1');
    expect(await redis.petrelSetFieldsIfExists(key, 'a', '1')).toBe(0);
    expect(await redis.exists(key)).toBe(0);
    await redis.hset(key, 'id', 'e1');
    expect(await redis.petrelSetFieldsIfExists(key, 'a', '1', 'b', '2')).toBe(1);
    expect(await redis.hgetall(key)).toEqual({ id: 'e1', a: '1', b: '2' });
  });

  it('pipelines and MULTIs run the scripts from a prototype they share, not a copy each', async () => {
    const redis = defineScripts(fx.redis);
    const key = fx.keys.email('t', 'batched');
    await redis.hset(key, 'id', 'batched');
    // ioredis would copy every defined command onto each batch (~100 µs a batch, redis.ts)
    const raw = [redis.pipeline(), redis.multi()];
    for (const batch of raw) {
      expect(Object.hasOwn(batch, 'petrelSetFieldsIfExists')).toBe(false);
      expect(typeof (batch as never as Record<string, unknown>).petrelSetFieldsIfExists).toBe('function');
    }
    const p = pipeline(redis, 'test pipeline') as never as typeof redis;
    void p.petrelSetFieldsIfExists(key, 'a', '1');
    const m = transaction(redis, 'test multi');
    m.petrelSetFieldsIfExists(key, 'b', '2');
    m.hget(key, 'a');
    expect(await (p as never as { exec(): Promise<unknown> }).exec()).toEqual([[null, 1]]);
    expect(await execAll(m)).toEqual([1, '1']);
    // a command defined later (BullMQ defines its own on first use) is on the next batch
    redis.defineCommand('petrelTestDefinedLater', {
      numberOfKeys: 1,
      lua: "return redis.call('HLEN', KEYS[1])",
    });
    const later = redis.pipeline() as never as Record<string, (key: string) => unknown>;
    later.petrelTestDefinedLater!(key);
    expect(await (later as never as { exec(): Promise<unknown> }).exec()).toEqual([[null, 3]]);
  });

  it('a batch falls back from EVALSHA to EVAL on a Redis that lost its scripts (a restart)', async () => {
    // its own redis-server: SCRIPT FLUSH on the Redis the other test files share would fail
    // their MULTIs that run at that moment (EVALSHA → NOSCRIPT → EXECABORT)
    const server = await startRedis({ appendonly: false });
    const redis = defineScripts(createRedis(server.url, 'command', 'scripts-flush'));
    try {
      const key = 'flush:{t}:record';
      await redis.hset(key, 'id', 'flushed');
      const first = pipeline(redis, 'before flush') as never as typeof redis;
      void first.petrelSetFieldsIfExists(key, 'a', '1');
      expect(await (first as never as { exec(): Promise<unknown> }).exec()).toEqual([[null, 1]]);
      await redis.script('FLUSH');
      const again = pipeline(redis, 'after flush') as never as typeof redis;
      void again.petrelSetFieldsIfExists(key, 'b', '2');
      expect(await (again as never as { exec(): Promise<unknown> }).exec()).toEqual([[null, 1]]);
      expect(await redis.hgetall(key)).toEqual({ id: 'flushed', a: '1', b: '2' });
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  it('refuses what a Redis Cluster refuses: keys of two slots, before anything is sent', async () => {
    const redis = defineScripts(fx.redis);
    const [record, global] = [fx.keys.email('t', 'absent'), fx.keys.teams()];
    await expect(redis.petrelSetFieldsIfExists(record, 'a', '1')).resolves.toBe(0); // one key: fine
    await expect(
      redis.petrelRecordEmailEvents(
        5,
        record,
        fx.keys.emailEvents('t', 'e1'),
        global,
        fx.keys.unfinishedEmails('t', 'send'),
        fx.keys.unfinishedEmails('t', 'broadcast'),
        10,
        0,
      ),
    ).rejects.toThrow(CrossSlotError);
    // The same keys in a raw EVAL (no check of ours): a cluster refuses them itself, so the
    // store's check stands for the cluster's rule in single-server runs.
    expect(fx.redis instanceof Cluster).toBe(onCluster);
    const raw = fx.redis.eval("return redis.call('EXISTS', KEYS[1], KEYS[2])", 2, record, global);
    if (onCluster) await expect(raw).rejects.toThrow(/CROSSSLOT/);
    else await expect(raw).resolves.toBe(0);
  });
});

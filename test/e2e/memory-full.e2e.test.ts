/**
 * Redis memory full (`maxmemory`, `noeviction`): the API answers 503 (never a
 * 500, never a 200 for an email it did not store), Redis evicts nothing, and once memory is
 * raised new sends succeed within seconds; every email acknowledged before is delivered.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, waitUntil, type TestRedis } from '@petrel/testing';
import { email, startStack, type Stack } from './helpers.js';

let redis: TestRedis;
let stack: Stack;
let admin: Redis;

beforeAll(async () => {
  redis = await startRedis({ maxmemory: '24mb' });
  stack = await startStack({ redis });
  admin = new Redis(redis.url);
});
afterAll(async () => {
  admin?.disconnect();
  await stack?.stop();
  await redis?.stop();
});

describe('Redis memory full (R7)', () => {
  it('503 while full, nothing evicted, no acknowledged email lost, sends resume once memory is raised', async () => {
    const html = `<p>${'x'.repeat(40_000)}</p>`; // ~4 MB of records per 100-email batch (body limit 5 MB)
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    for (let b = 0; b < 40; b++) {
      const res = await stack.http('/emails/batch', {
        method: 'POST',
        body: JSON.stringify(Array.from({ length: 100 }, (_, i) => email(b * 100 + i, { html }))),
      });
      statuses.push(res.status);
      if (res.status === 200) {
        acknowledged.push(...(res.body as { data: { id: string }[] }).data.map((d) => d.id));
        continue;
      }
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ statusCode: 503, name: 'service_unavailable' });
      break;
    }
    expect(statuses).toContain(503); // memory did fill up
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    const info = await admin.info('stats');
    expect(/evicted_keys:(\d+)/.exec(info)?.[1]).toBe('0');

    // Every email the API acknowledged is stored: nothing half-written, nothing refused but kept.
    for (const id of acknowledged) {
      const got = await stack.resend.emails.get(id);
      expect(got.error, id).toBeNull();
    }

    await admin.config('SET', 'maxmemory', '256mb');
    const after = await waitUntil(
      async () => {
        const r = await stack.resend.batch.send([email(99_999)] as never);
        return r.data ? r.data.data[0]!.id : undefined;
      },
      { timeoutMs: 5_000, message: 'a send to succeed after memory was raised' },
    );
    acknowledged.push(after);

    // Delivered, all of them (the workers write records too: they waited out the full memory).
    const messages = await stack.sink.waitFor(acknowledged.length, 60_000);
    const sent = new Set(messages.map((m) => /^<([^@]+)@/.exec(m.parsed.messageId ?? '')?.[1]));
    expect(acknowledged.filter((id) => !sent.has(id))).toEqual([]);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import type { EmailEvent } from '@petrel/contracts';
import { emailContent } from '@petrel/testing';
import { useStoreRedis } from './redis.fixture.js';
import { EmailsStore, type NewEmail } from './emails.store.js';
import { IdempotencyStore } from './idempotency.store.js';
import { OutboxStore } from './outbox.store.js';

const fx = useStoreRedis('outbox');

const email = (id: string, dueMs = 0): NewEmail => ({
  id,
  content: emailContent(),
  status: dueMs ? 'scheduled' : 'queued',
  lane: 'send',
  dueMs,
  messageId: `<${id}@acme.test>`,
  event: { id, type: 'email.queued', created_at: '', teamId: 't', data: {} } as EmailEvent,
});

function stores() {
  const idempotency = new IdempotencyStore(fx.redis, fx.keys);
  return {
    emails: new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 }),
    idempotency,
    outbox: new OutboxStore(fx.redis, fx.keys, idempotency),
  };
}

describe('OutboxStore', () => {
  it('stage puts every email of the request in the outbox, with its lane, due time and acceptance time', async () => {
    const { emails, outbox } = stores();
    const at = new Date(5_000);
    expect(await emails.stage('t1', [email('a'), email('b', 99_000)], at)).toBe(2);
    expect(await outbox.pending('t1', 5_001, 10)).toEqual([
      { lane: 'send', emailId: 'a', dueMs: 0, acceptedMs: 5_000 },
      { lane: 'send', emailId: 'b', dueMs: 99_000, acceptedMs: 5_000 },
    ]);
    // strictly before the cutoff, oldest first, at most `limit`
    expect(await outbox.pending('t1', 5_000, 10)).toEqual([]);
    await emails.stage('t1', [email('c')], new Date(4_000));
    expect((await outbox.pending('t1', 6_000, 2)).map((e) => e.emailId)).toEqual(['c', 'a']);
    // a retried stage (records exist) creates nothing but keeps every entry in the outbox
    expect(await emails.stage('t1', [email('a')], at)).toBe(0);
    expect(await outbox.size('t1')).toBe(3);

    await outbox.remove('t1', [
      { lane: 'send', emailId: 'a', dueMs: 0 },
      { lane: 'send', emailId: 'c', dueMs: 0 },
      { lane: 'send', emailId: 'gone', dueMs: 0 },
    ]);
    expect((await outbox.pending('t1', 6_000, 10)).map((e) => e.emailId)).toEqual(['b']);
  });

  it('clear with a completion removes the entries and stores the response, for the claim owner only', async () => {
    const { emails, idempotency, outbox } = stores();
    const claim = await idempotency.claim('t2', 'key', 'fp');
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    await emails.stage('t2', [email('x')], new Date(1_000));
    const key = idempotency.redisKey('t2', 'key');
    await outbox.clear('t2', [{ lane: 'send', emailId: 'x', dueMs: 0 }], {
      claim: { key, owner: claim.owner },
      status: 200,
      body: '{"id":"x"}',
    });
    expect(await outbox.size('t2')).toBe(0);
    expect(await idempotency.lookup('t2', 'key', 'fp')).toEqual({
      outcome: 'replay',
      status: 200,
      body: '{"id":"x"}',
    });

    // another owner (its claim was taken over) completes nothing, but its entries still go
    const other = await idempotency.claim('t2', 'key2', 'fp');
    if (other.outcome !== 'proceed') throw new Error('expected proceed');
    await emails.stage('t2', [email('y')], new Date(1_000));
    await outbox.clear('t2', [{ lane: 'send', emailId: 'y', dueMs: 0 }], {
      claim: { key: idempotency.redisKey('t2', 'key2'), owner: 'not-the-owner' },
      status: 200,
      body: '{}',
    });
    expect(await outbox.size('t2')).toBe(0);
    expect(await idempotency.lookup('t2', 'key2', 'fp')).toEqual({ outcome: 'in_flight' });
  });
});

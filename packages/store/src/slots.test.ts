/**
 * The one-slot rule without a Redis server: a cross-slot script call, transaction or pipeline is
 * refused before anything is sent (the connection never connects: `lazyConnect`).
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Keys } from './keys.js';
import { defineScripts, pipeline, transaction } from './scripts.js';
import { assertOneSlot, CrossSlotError } from './slots.js';

const redis = defineScripts(new Redis({ lazyConnect: true, enableOfflineQueue: false }));
const keys = new Keys('pt');
afterAll(() => redis.disconnect());

describe('assertOneSlot', () => {
  it('accepts keys of one hash tag, and keys without a tag that hash alike', () => {
    expect(() =>
      assertOneSlot('t', [keys.email('a', '1'), keys.emails('a'), keys.outbox('a')]),
    ).not.toThrow();
    // CLUSTER KEYSLOT: the tag alone is hashed, so these share a slot (Redis Cluster spec, "Hash tags")
    expect(() => assertOneSlot('t', ['{user1000}.following', '{user1000}.followers'])).not.toThrow();
  });

  it('refuses keys of two slots, naming the caller, both keys and their slots', () => {
    let caught: unknown;
    try {
      assertOneSlot('petrelExample', [keys.email('a', '1'), keys.teams()]);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CrossSlotError);
    const e = caught as CrossSlotError;
    expect(e.message).toContain('petrelExample');
    expect(e.message).toContain("'pt:{a}:email:1'");
    expect(e.message).toContain("'pt:teams'");
    // the slots as CLUSTER KEYSLOT reports them: 'foo' is 12182 and 'bar' 5061
    expect(() => assertOneSlot('x', ['foo', 'bar'])).toThrow(/'foo' \(slot 12182\) and 'bar' \(slot 5061\)/);
    // an empty tag `{}` does not count as one: the whole key is hashed
    expect(() => assertOneSlot('x', ['{}foo', '{}bar'])).toThrow(CrossSlotError);
  });
});

describe('the registry call path and the batch helpers', () => {
  it('a script called with keys of two teams is refused before it is sent', async () => {
    await expect(
      redis.petrelRecordEmailEvents(
        5,
        keys.email('a', '1'),
        keys.emailEvents('a', '1'),
        keys.events('b'),
        keys.unfinishedEmails('a', 'send'),
        keys.unfinishedEmails('a', 'broadcast'),
        10,
        0,
      ),
    ).rejects.toThrow(/petrelRecordEmailEvents uses keys of two hash slots/);
    await expect(
      redis.petrelAcceptEmails(3, keys.emails('a'), keys.outbox('a'), keys.email('b', '1'), 1, 0, 0, 0),
    ).rejects.toThrow(CrossSlotError);
  });

  it('a transaction refuses the command that brings a second slot, scripts included', () => {
    const multi = transaction(redis, 'example transaction');
    multi.hset(keys.apiKey('a', 'k'), 'name', 'n').zadd(keys.apiKeys('a'), 1, 'k');
    expect(() => multi.hset(keys.apiKeyByHash(), 'h', 'v')).toThrow(/example transaction uses keys of two/);
    const completion = transaction(redis, 'completion');
    completion.zrem(keys.outbox('a'), 'm');
    expect(() =>
      completion.petrelCompleteIdempotencyKey(keys.idempotency('b', 'h'), 'owner', 200, '{}', 1000),
    ).toThrow(/completion uses keys of two/);
    multi.discard();
    completion.discard();
  });

  it('a pipeline follows the same rule', () => {
    const pipe = pipeline(redis, 'example pipeline');
    pipe.hgetall(keys.email('a', '1')).hgetall(keys.email('a', '2'));
    expect(() => pipe.hgetall(keys.email('b', '3'))).toThrow(/example pipeline/);
  });
});

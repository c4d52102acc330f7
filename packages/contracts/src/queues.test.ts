import { describe, expect, it } from 'vitest';
import { v7 } from 'uuid';
import {
  CLUSTER_SLOTS,
  LANE_QUEUE,
  SEND_LANES,
  crc16,
  keySlot,
  sendQueueName,
  sendQueueNames,
  sendQueueOf,
  shardOf,
} from './queues.js';

describe('keySlot (CLUSTER KEYSLOT)', () => {
  it('is CRC16/XMODEM mod 16384, as the Redis Cluster specification gives it', () => {
    expect(crc16(new TextEncoder().encode('123456789'))).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('123456789')).toBe(0x31c3 % CLUSTER_SLOTS);
  });

  it('hashes only the first non-empty hash tag', () => {
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('pt:bull:{petrel-send-0of2-1}:wait')).toBe(keySlot('petrel-send-0of2-1'));
    // An empty tag `{}` does not count. Redis then hashes the whole key; cluster-key-slot 1.1,
    // and so ioredis's routing, reads on to the next tag (`{bar`): a key of this shape would be
    // sent to the wrong node and follow a MOVED reply.
    expect(keySlot('foo{}{bar}')).toBe(keySlot('{bar'));
    expect(crc16(new TextEncoder().encode('foo{}{bar}')) % CLUSTER_SLOTS).toBe(8363);
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'));
  });
});

describe('send queue names', () => {
  it('are one hash tag per shard, without the `:` BullMQ refuses, and stable', () => {
    // Persisted: these exact names hold queued jobs. Changing them strands those jobs.
    expect(sendQueueNames('send', 1)).toEqual(['{petrel-send-0of1-0}']);
    expect(sendQueueNames('send', 2)).toEqual(['{petrel-send-0of2-1}', '{petrel-send-1of2-3}']);
    for (const lane of SEND_LANES) {
      for (const shards of [1, 2, 3, 4, 6, 16, 64]) {
        const names = sendQueueNames(lane, shards);
        expect(names).toHaveLength(shards);
        expect(new Set(names).size).toBe(shards);
        for (const [i, name] of names.entries()) {
          expect(name).toMatch(new RegExp(`^\\{${LANE_QUEUE[lane]}-${i}of${shards}-\\d+\\}$`));
          expect(name).not.toContain(':');
          expect(sendQueueName(lane, i, shards)).toBe(name);
        }
      }
    }
  });

  it('put shard i of N in the middle half of the i-th 1/N of the slot space', () => {
    for (const lane of SEND_LANES) {
      for (const shards of [1, 2, 3, 4, 5, 6, 9, 12, 64]) {
        const width = CLUSTER_SLOTS / shards;
        sendQueueNames(lane, shards).forEach((name, i) => {
          const slot = keySlot(name);
          expect(slot).toBeGreaterThanOrEqual((i + 0.25) * width);
          expect(slot).toBeLessThan((i + 0.75) * width);
        });
      }
    }
  });

  it('the unsharded layout is the one queue per lane of releases before sharding', () => {
    expect(sendQueueNames('send', 'unsharded')).toEqual(['petrel-send']);
    expect(sendQueueNames('broadcast', 'unsharded')).toEqual(['petrel-send-broadcast']);
    expect(sendQueueOf('send', v7(), 'unsharded')).toBe('petrel-send');
  });

  it('refuses shard counts and indexes that do not exist', () => {
    expect(() => sendQueueNames('send', 0)).toThrow(RangeError);
    expect(() => sendQueueNames('send', 1.5)).toThrow(RangeError);
    expect(() => sendQueueName('send', 2, 2)).toThrow(RangeError);
    expect(() => shardOf('x', 0)).toThrow(RangeError);
  });
});

describe('shardOf', () => {
  it('is stable: the same id always maps to the same shard', () => {
    // Persisted: remove and reschedule find a job by it.
    const id = '0190b6c8-7f4e-7000-8000-000000000000';
    expect([2, 3, 4, 7].map((shards) => shardOf(id, shards))).toEqual([0, 1, 2, 3]);
    expect(shardOf('anything', 1)).toBe(0);
  });

  it('spreads a burst of UUIDv7 ids (same millisecond, sequential) evenly', () => {
    const n = 40_000;
    const ids = Array.from({ length: n }, () => v7());
    for (const shards of [2, 3, 4, 6, 8, 16]) {
      const counts = new Array<number>(shards).fill(0);
      for (const id of ids) counts[shardOf(id, shards)]!++;
      // Binomial spread: σ = √(n·p·(1−p)). A bound of 6σ fails by chance about once in 10⁹ bins
      // (a 5 % bound was only 2.6σ at 16 shards and failed a CI run); a hash that ignored the
      // random tail of the id would put every id of the burst on one shard and fail it by far.
      const p = 1 / shards;
      const sigma = Math.sqrt(n * p * (1 - p));
      for (const c of counts) expect(Math.abs(c - n * p)).toBeLessThan(6 * sigma);
    }
  });

  it('sendQueueOf is the shard queue of the email', () => {
    const id = v7();
    expect(sendQueueOf('broadcast', id, 4)).toBe(sendQueueName('broadcast', shardOf(id, 4), 4));
  });
});

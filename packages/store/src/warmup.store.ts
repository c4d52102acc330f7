/**
 * The warm-up counters of the sending pools' addresses (packages/core sending-pools.ts), shared
 * by every worker: each address's first use, and per warm-up day and destination provider the
 * emails sent from it. One key per command, so nothing here spans slots.
 */
import type { WarmupCounter } from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';

export class WarmupStore implements WarmupCounter {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async since(address: string, nowMs: number): Promise<number> {
    const key = this.keys.warmupSince(address);
    // SET NX … GET: the first writer's time, whoever it was, in one round trip
    const previous = await this.redis.set(key, String(nowMs), 'NX', 'GET');
    return previous === null ? nowMs : Number(previous);
  }

  /**
   * INCR then check: two workers at the cap both see a count over it and give theirs back, so
   * the counter never lets more than `cap` through (it may refuse one too many for an instant).
   */
  async take(address: string, provider: string, day: number, cap: number, ttlMs: number): Promise<boolean> {
    const key = this.keys.warmupCount(address, provider, day);
    const count = await this.redis.incr(key);
    if (count === 1) await this.redis.pexpire(key, ttlMs);
    if (count <= cap) return true;
    await this.redis.decr(key);
    return false;
  }
}

/**
 * What every store of a team's resources starts from: the connection with the store's scripts
 * registered (scripts.ts: named, slot-checked), the key layout, and the clock that stamps records.
 */
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { defineScripts, type StoreCommands } from './scripts.js';

export abstract class TeamStore {
  protected readonly redis: RedisClient & StoreCommands;

  constructor(
    redis: RedisClient,
    protected readonly keys: Keys,
    protected readonly clock: { now(): number } = Date,
  ) {
    this.redis = defineScripts(redis);
  }
}

/**
 * A team store whose records expire: `retentionMs` after they are written or finished (the
 * email retention for emails' logs, a finished automation run's time to stay readable).
 */
export abstract class RetainedTeamStore extends TeamStore {
  constructor(
    redis: RedisClient,
    keys: Keys,
    protected readonly retentionMs: number,
    clock: { now(): number } = Date,
  ) {
    super(redis, keys, clock);
  }
}

/**
 * Idempotency keys: a Lua claim, deterministic work, and a completion written once the accepted
 * emails have their records and their jobs (OutboxStore.clear, the last step of acceptance), so a
 * stored response always names emails that will be sent, and a retry after a crash recomputes
 * the same ids.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { LIMITS } from '@petrel/contracts';
import { newId } from '@petrel/core';
import { Keys } from './keys.js';
import { defineScripts, type QueuedStoreCommands, type StoreCommands } from './scripts.js';

export type ClaimOutcome =
  | { outcome: 'proceed'; owner: string; startedMs: number }
  | { outcome: 'mismatch' }
  | { outcome: 'in_flight' }
  | { outcome: 'replay'; status: number; body: string };

/** {@link IdempotencyStore.lookup}: a claim's outcomes, read only (`in_flight` even if the lock expired). */
export type LookupOutcome =
  | { outcome: 'absent' }
  | { outcome: 'mismatch' }
  | { outcome: 'in_flight' }
  | { outcome: 'replay'; status: number; body: string };

export interface IdempotencyClaim {
  key: string;
  owner: string;
}

/** How long a claim blocks concurrent requests before a retry may take it over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

/** Canonical JSON (sorted object keys) so a re-serialised body is not a conflict. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

export class IdempotencyStore {
  private readonly redis: RedisClient & StoreCommands;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    private readonly lockMs = IDEMPOTENCY_LOCK_MS,
    private readonly ttlMs: number = LIMITS.idempotencyTtlMs,
  ) {
    this.redis = defineScripts(redis);
  }

  redisKey(teamId: string, rawKey: string): string {
    return this.keys.idempotency(teamId, createHash('sha256').update(rawKey).digest('hex'));
  }

  async claim(teamId: string, rawKey: string, fingerprint: string, now = Date.now()): Promise<ClaimOutcome> {
    const owner = newId();
    const res = await this.redis.petrelClaimIdempotencyKey(
      this.redisKey(teamId, rawKey),
      fingerprint,
      owner,
      now,
      this.lockMs,
      this.ttlMs,
    );
    switch (res[0]) {
      case 'proceed':
        return { outcome: 'proceed', owner, startedMs: Number(res[1]) };
      case 'mismatch':
        return { outcome: 'mismatch' };
      case 'in_flight':
        return { outcome: 'in_flight' };
      default:
        return { outcome: 'replay', status: Number(res[2]), body: res[3] ?? '' };
    }
  }

  /**
   * Read-only peek at a key: what a claim would answer, without claiming, taking over an
   * expired lock or touching the TTL. `absent` when the key is unknown or was released.
   * (The claim script stays the only writer; a peek may be stale by the time it returns,
   * which is harmless for its one use: replaying a completed response.)
   */
  async lookup(teamId: string, rawKey: string, fingerprint: string): Promise<LookupOutcome> {
    const [fp, state, status, body] = await this.redis.hmget(
      this.redisKey(teamId, rawKey),
      'fp',
      'state',
      'status',
      'body',
    );
    if (fp === null || fp === undefined) return { outcome: 'absent' };
    if (fp !== fingerprint) return { outcome: 'mismatch' };
    if (state !== 'done') return { outcome: 'in_flight' };
    return { outcome: 'replay', status: Number(status), body: body ?? '' };
  }

  /** Queue the completion on a transaction of the team's slot (`transaction` from scripts.ts). */
  completeIn(multi: QueuedStoreCommands, claim: IdempotencyClaim, status: number, body: string): void {
    multi.petrelCompleteIdempotencyKey(claim.key, claim.owner, status, body, this.ttlMs);
  }

  /** Drop a claim whose request was refused before any side effect (validation errors). */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.redis.petrelReleaseIdempotencyKey(claim.key, claim.owner);
  }
}

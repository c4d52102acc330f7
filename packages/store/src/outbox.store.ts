/**
 * Each team's outbox: the accepted emails whose send job may not exist yet. Acceptance runs in
 * three steps because an email's record (its team's hash slot) and its job (its queue shard's
 * slot) cannot share one Redis Cluster transaction:
 *   1. `EmailsStore.stage`: records + outbox entries, one script in the team's slot;
 *   2. the send queues' `enqueue` (job id = email id, so repeating it is harmless);
 *   3. {@link OutboxStore.clear}: the entries go, and the Idempotency-Key's stored response is
 *      written — one MULTI in the team's slot.
 * A crash after step 1 leaves records with outbox entries; the outbox relay (core's
 * `relayOutbox`, run by the scheduler) enqueues them after a grace period and removes them.
 * docs/architecture.md, "Acceptance", states what each crash leaves.
 */
import type { RedisClient } from './redis.js';
import { SEND_LANES, type SendLane } from '@petrel/contracts';
import type { OutboxEntry, OutboxJob, OutboxPort } from '@petrel/core';
import { Keys } from './keys.js';
import type { IdempotencyClaim, IdempotencyStore } from './idempotency.store.js';
import { defineScripts, execAll, transaction, type StoreCommands } from './scripts.js';

/**
 * The outbox member of an email's own job: `<lane>:<dueMs>:<emailId>`, or of a group job (one
 * per request: one write instead of one per email): `<lane>:<dueMs>:<id1>,<id2>,…` (email ids
 * hold no comma). Deterministic, so the steps that remove an entry rebuild it from the job alone.
 * petrelAcceptEmails-n.lua builds an email's own member the same way from its lane, due time and
 * id (emails.store.int.test.ts checks its members).
 */
export function outboxMember(lane: SendLane, emailId: string, dueMs: number): string {
  return `${lane}:${dueMs}:${emailId}`;
}

/** The member of `job` (see {@link outboxMember}). */
export function outboxJobMember(job: OutboxJob): string {
  return outboxMember(job.lane, job.emailIds ? job.emailIds.join(',') : job.emailId, job.dueMs);
}

function parseMember(member: string, acceptedMs: number): OutboxEntry | null {
  const first = member.indexOf(':');
  const second = member.indexOf(':', first + 1);
  if (first === -1 || second === -1) return null;
  const lane = member.slice(0, first) as SendLane;
  const dueMs = Number(member.slice(first + 1, second));
  if (!SEND_LANES.includes(lane) || !Number.isFinite(dueMs)) return null;
  const ids = member.slice(second + 1);
  if (!ids.includes(',')) return { lane, dueMs, emailId: ids, acceptedMs };
  const emailIds = ids.split(',');
  return { lane, dueMs, emailId: emailIds[0]!, emailIds, acceptedMs };
}

export class OutboxStore implements OutboxPort {
  private readonly redis: RedisClient & StoreCommands;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    private readonly idempotency: IdempotencyStore,
  ) {
    this.redis = defineScripts(redis);
  }

  /**
   * Step 3 of acceptance: the jobs of `jobs` exist, so their entries go; with `completion`, the
   * request's stored response is written in the same MULTI (only the claim's owner completes).
   */
  async clear(
    teamId: string,
    jobs: readonly OutboxJob[],
    completion?: { claim: IdempotencyClaim; status: number; body: string },
  ): Promise<void> {
    const members = jobs.map(outboxJobMember);
    if (!completion) {
      if (members.length > 0) await this.redis.zrem(this.keys.outbox(teamId), ...members);
      return;
    }
    const multi = transaction(this.redis, 'acceptance step 3 (outbox + idempotency)');
    if (members.length > 0) multi.zrem(this.keys.outbox(teamId), ...members);
    this.idempotency.completeIn(multi, completion.claim, completion.status, completion.body);
    await execAll(multi);
  }

  async pending(teamId: string, acceptedBeforeMs: number, limit: number): Promise<OutboxEntry[]> {
    const flat = await this.redis.zrangebyscore(
      this.keys.outbox(teamId),
      '-inf',
      `(${acceptedBeforeMs}`,
      'WITHSCORES',
      'LIMIT',
      0,
      limit,
    );
    const entries: OutboxEntry[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const entry = parseMember(flat[i]!, Number(flat[i + 1]));
      if (entry) entries.push(entry);
    }
    return entries;
  }

  async remove(teamId: string, jobs: OutboxJob[]): Promise<void> {
    await this.clear(teamId, jobs);
  }

  /** How many entries the team's outbox holds (tests, diagnostics). */
  size(teamId: string): Promise<number> {
    return this.redis.zcard(this.keys.outbox(teamId));
  }
}

/**
 * What the stuck-email watchdog reads and writes (the UnfinishedEmails port of packages/core
 * watchdog): each team's index of unfinished emails per lane (`Keys.unfinishedEmails`, kept by
 * the email scripts: entered at acceptance, left at `sent` or later, or on cancel), the email
 * records with the watchdog's once-only re-enqueue mark (`watchdog_requeued_ms`), and the
 * team's contact imports still `queued`.
 */
import type { EmailEvent, EmailStatus, SendLane } from '@petrel/contracts';
import type { UnfinishedEmails, UnfinishedEntry, WatchedEmail } from '@petrel/core';
import { SEND_GROUP_FIELD, type EmailsStore } from './emails.store.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { pipeline } from './scripts.js';
import { TeamStore } from './team-store.js';

const REQUEUED = 'watchdog_requeued_ms';
/** A queued import's record expires this long after its creation (contact-imports.store.ts). */
const IMPORT_PENDING_TTL_MS = 7 * 24 * 3600 * 1000;

export class WatchdogStore extends TeamStore implements UnfinishedEmails {
  constructor(
    redis: RedisClient,
    keys: Keys,
    private readonly emails: EmailsStore,
  ) {
    super(redis, keys);
  }

  async oldest(teamId: string, lane: SendLane): Promise<number | null> {
    const [, score] = await this.redis.zrange(
      this.keys.unfinishedEmails(teamId, lane),
      '0',
      '0',
      'WITHSCORES',
    );
    return score === undefined ? null : Number(score);
  }

  async overdue(teamId: string, lane: SendLane, cutoffMs: number, limit: number): Promise<UnfinishedEntry[]> {
    const flat = await this.redis.zrange(
      this.keys.unfinishedEmails(teamId, lane),
      '-inf',
      `(${cutoffMs}`,
      'BYSCORE',
      'LIMIT',
      0,
      limit,
      'WITHSCORES',
    );
    const out: UnfinishedEntry[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ emailId: flat[i]!, dueMs: Number(flat[i + 1]) });
    return out;
  }

  async get(teamId: string, emailId: string): Promise<WatchedEmail | null> {
    const [record, [mark, group] = []] = await Promise.all([
      this.emails.get(teamId, emailId),
      this.redis.hmget(this.keys.email(teamId, emailId), REQUEUED, SEND_GROUP_FIELD),
    ]);
    if (!record) return null;
    return {
      ...record,
      requeuedMs: mark == null ? null : Number(mark),
      ...(group ? { group } : {}),
    };
  }

  async forget(teamId: string, lane: SendLane, emailId: string): Promise<void> {
    await this.redis.zrem(this.keys.unfinishedEmails(teamId, lane), emailId);
  }

  async reindex(teamId: string, lane: SendLane, emailId: string, dueMs: number): Promise<void> {
    await this.redis.zadd(this.keys.unfinishedEmails(teamId, lane), 'XX', dueMs, emailId);
  }

  async markRequeued(teamId: string, emailId: string, atMs: number): Promise<boolean> {
    return (await this.redis.petrelMarkEmailRequeued(this.keys.email(teamId, emailId), atMs)) === 1;
  }

  async unmarkRequeued(teamId: string, emailId: string): Promise<void> {
    await this.redis.hdel(this.keys.email(teamId, emailId), REQUEUED);
  }

  recordEvent(
    teamId: string,
    emailId: string,
    status: EmailStatus,
    event: EmailEvent,
  ): Promise<'moved' | 'kept' | 'missing'> {
    return this.emails.recordEvent(teamId, emailId, status, event);
  }

  /**
   * Ids of the team's contact imports still `queued` and created before `cutoffMs` (only those
   * of the last 7 days: an older queued import's record has expired).
   */
  async queuedImportsBefore(teamId: string, cutoffMs: number): Promise<string[]> {
    const ids = await this.redis.zrangebyscore(
      this.keys.contactImports(teamId),
      cutoffMs - IMPORT_PENDING_TTL_MS,
      `(${cutoffMs}`,
    );
    if (ids.length === 0) return [];
    const p = pipeline(this.redis, 'WatchdogStore.queuedImportsBefore');
    for (const id of ids) p.hget(this.keys.contactImport(teamId, id), 'status');
    const rows = (await p.exec()) ?? [];
    return ids.filter((_, i) => rows[i]?.[1] === 'queued');
  }
}

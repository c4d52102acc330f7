/**
 * The dashboard's email counters: per team and hour, a hash `<lane>:<status>` → count of events
 * of that status recorded in that hour (sent, delivered, bounced, complained, opened, clicked).
 * `petrelRecordEmailEvents` increments them in the script that records the events (one slot: the
 * hash is the team's), and sets the hash to expire DASHBOARD_STATS_RETENTION_DAYS after its
 * hour ends. Reading a range is one pipeline of one HGETALL per hour.
 */
import { SEND_LANES, type SendLane } from '@petrel/contracts';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { pipeline } from './scripts.js';
import { COUNTED_STATUSES, type CountedStatus } from './email-stats.statuses.js';

export { COUNTED_STATUSES, type CountedStatus } from './email-stats.statuses.js';

export const HOUR_MS = 3_600_000;

export type EmailStatsRow = { bucket: string; lane: SendLane } & Record<CountedStatus, number>;

/** Where an event recorded at `nowMs` is counted, and when that hour's hash expires. */
export function statsBucket(
  keys: Keys,
  teamId: string,
  nowMs: number,
  retentionMs: number,
): { key: string; hourMs: number; expireAtMs: number } {
  const hour = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  return { key: keys.emailStats(teamId, hour), hourMs: hour, expireAtMs: hour + HOUR_MS + retentionMs };
}

export class EmailStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /**
   * One row per hour in [fromMs, toMs) (hours starting in it, `fromMs` rounded down to its hour)
   * and lane (`lane` alone when given), oldest first, zeros included.
   */
  async read(teamId: string, fromMs: number, toMs: number, lane?: SendLane): Promise<EmailStatsRow[]> {
    const hours: number[] = [];
    for (let h = Math.floor(fromMs / HOUR_MS) * HOUR_MS; h < toMs; h += HOUR_MS) hours.push(h);
    if (hours.length === 0) return [];
    const batch = pipeline(this.redis, 'EmailStats.read');
    for (const h of hours) batch.hgetall(this.keys.emailStats(teamId, h));
    const replies = (await batch.exec()) ?? [];
    const lanes = lane ? [lane] : SEND_LANES;
    const rows: EmailStatsRow[] = [];
    hours.forEach((h, i) => {
      const [err, hash] = replies[i] ?? [];
      if (err) throw err;
      const counts = (hash ?? {}) as Record<string, string>;
      for (const l of lanes) {
        const row = { bucket: new Date(h).toISOString(), lane: l } as EmailStatsRow;
        for (const s of COUNTED_STATUSES) row[s] = Number(counts[`${l}:${s}`] ?? 0);
        rows.push(row);
      }
    });
    return rows;
  }
}

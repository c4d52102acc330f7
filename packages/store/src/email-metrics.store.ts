/**
 * The counters of GET /emails/metrics (docs/architecture.md, "Email metrics"), kept at write
 * time in the team's hourly hash (email-stats.ts) under the fields of email-metrics.fields.ts:
 *  - events: `petrelRecordEmailEvents` itself (the include count-email-metrics, its arguments
 *    from {@link eventCountArgs}) counts each event's metrics (core's `eventMetrics`) for the
 *    team, the email's sending domain and its broadcast, and writes a broadcast's recipient and
 *    link indexes (broadcast-analytics.store.ts), in the script that records the event;
 *  - acceptance: `received`, per request, in the acceptance pipeline ({@link queueReceivedCounts}).
 * Reading a range is one HGETALL per hour of the breakdown asked for (pipelined): its cost follows
 * the hours and the distinct domains or broadcasts of those hours, not the emails.
 */
import type { ChainableCommander } from 'ioredis';
import {
  COUNTED_METRICS,
  eventMetrics,
  type CountedMetric,
  type EmailMetricsPorts,
  type MetricsCell,
  type RecordedEventKind,
  type TimelineEvent,
} from '@petrel/core';
import type { EmailEvent } from '@petrel/contracts';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { pipeline } from './scripts.js';
import { statsBucket } from './email-stats.js';
import { METRIC_FIELD } from './email-metrics.fields.js';
import { FIRST_EVENT_FIELD, timelineOf } from './email-timeline.js';

const COUNTED = new Set<string>(COUNTED_METRICS);
/** Hours per pipeline when reading a long range. */
const READ_CHUNK = 500;

/**
 * What `petrelRecordEmailEvents` needs to count `items` (the events recorded for one email):
 * the metrics keys (KEYS[19..24]: the hour's per-domain and per-broadcast hashes, the broadcast's
 * indexes and its record), each event's counters and clicked link (after its status, rank and JSON head), and
 * the tail (the broadcast id the indexes belong to, their TTL, the hour hashes' expiry).
 * `broadcastTtlMs`: how long a broadcast's indexes are kept after their last write (the email
 * retention: they list emails).
 */
export function eventCountArgs(
  keys: Keys,
  teamId: string,
  items: readonly { status: RecordedEventKind; event: EmailEvent }[],
  hour: { hourMs: number; expireAtMs: number },
  broadcastTtlMs: number,
): { keys: string[]; perEvent: [string, string][]; tail: (string | number)[] } {
  let broadcastId = '';
  const perEvent = items.map(({ status, event }): [string, string] => {
    if (typeof event.data.broadcast_id === 'string') broadcastId = event.data.broadcast_id;
    const click = event.data.click as { link?: unknown } | undefined;
    return [
      eventMetrics(status, event.data).join(','),
      status === 'clicked' && typeof click?.link === 'string' ? click.link : '',
    ];
  });
  return {
    keys: [
      keys.emailMetricsDomains(teamId, hour.hourMs),
      keys.emailMetricsBroadcasts(teamId, hour.hourMs),
      keys.broadcastRecipients(teamId, broadcastId),
      keys.broadcastLinks(teamId, broadcastId),
      keys.broadcastLinkClicks(teamId, broadcastId),
      // KEYS[24]: the broadcast's record, its protection counters (core broadcasts/protection.ts)
      keys.broadcast(teamId, broadcastId),
    ],
    perEvent,
    tail: [broadcastId, broadcastTtlMs, hour.expireAtMs],
  };
}

/**
 * Queue `received` for emails just accepted: `perDomain` counts them by sending domain ('' when
 * the from address has none we can read), `broadcastId` when they are a broadcast's.
 */
export function queueReceivedCounts(
  batch: ChainableCommander,
  keys: Keys,
  teamId: string,
  nowMs: number,
  statsRetentionMs: number,
  perDomain: ReadonlyMap<string, number>,
  broadcastId?: string,
): void {
  const hour = statsBucket(keys, teamId, nowMs, statsRetentionMs);
  const domains = keys.emailMetricsDomains(teamId, hour.hourMs);
  const broadcasts = keys.emailMetricsBroadcasts(teamId, hour.hourMs);
  let total = 0;
  for (const [domain, n] of perDomain) {
    total += n;
    if (domain) batch.hincrby(domains, `${domain}:received`, n);
  }
  if (total === 0) return;
  batch.hincrby(hour.key, `${METRIC_FIELD.team}received`, total);
  batch.pexpireat(hour.key, hour.expireAtMs);
  if (perDomain.size > 1 || !perDomain.has('')) batch.pexpireat(domains, hour.expireAtMs);
  if (broadcastId) {
    batch.hincrby(broadcasts, `${broadcastId}:received`, total);
    batch.pexpireat(broadcasts, hour.expireAtMs);
  }
}

/**
 * The cells of one hour at the breakdown `by`, from its hash: the team's hourly hash (`t:` fields)
 * for `team`, the hour's per-domain or per-broadcast hash (`<name>:<metric>`) otherwise.
 */
export function hourCells(
  hourMs: number,
  hash: Record<string, string>,
  by: 'team' | 'domain' | 'broadcast',
): MetricsCell[] {
  const cells = new Map<string, MetricsCell>();
  for (const [field, value] of Object.entries(hash)) {
    let name = '';
    let metric: string;
    if (by === 'team') {
      if (!field.startsWith(METRIC_FIELD.team)) continue;
      metric = field.slice(METRIC_FIELD.team.length);
    } else {
      const cut = field.lastIndexOf(':');
      if (cut <= 0) continue;
      name = field.slice(0, cut);
      metric = field.slice(cut + 1);
    }
    if (!COUNTED.has(metric)) continue;
    let cell = cells.get(name);
    if (!cell) {
      cell = {
        hourMs,
        domain: by === 'domain' ? name : '',
        broadcast: by === 'broadcast' ? name : '',
        email: '',
        counts: {},
      };
      cells.set(name, cell);
    }
    cell.counts[metric as CountedMetric] = Number(value);
  }
  return [...cells.values()];
}

/** The store side of core's EmailMetricsPorts: the hourly counters and the emails' timelines. */
export class EmailMetricsStore implements Pick<EmailMetricsPorts, 'counters' | 'emails'> {
  readonly counters: EmailMetricsPorts['counters'];
  readonly emails: EmailMetricsPorts['emails'];

  constructor(redis: RedisClient, keys: Keys, statsRetentionMs: number) {
    this.counters = {
      retentionMs: statsRetentionMs,
      async read(teamId, hours, by) {
        const cells: MetricsCell[] = [];
        for (let i = 0; i < hours.length; i += READ_CHUNK) {
          const chunk = hours.slice(i, i + READ_CHUNK);
          const batch = pipeline(redis, 'EmailMetrics.read');
          const key =
            by === 'team'
              ? keys.emailStats
              : by === 'domain'
                ? keys.emailMetricsDomains
                : keys.emailMetricsBroadcasts;
          for (const h of chunk) batch.hgetall(key.call(keys, teamId, h));
          const replies = (await batch.exec()) ?? [];
          chunk.forEach((h, j) => {
            const [err, hash] = replies[j] ?? [];
            if (err) throw err;
            cells.push(...hourCells(h, (hash ?? {}) as Record<string, string>, by));
          });
        }
        return cells;
      },
    };
    this.emails = {
      async timelines(teamId, ids) {
        if (ids.length === 0) return [];
        const batch = pipeline(redis, 'EmailMetrics.timelines');
        for (const id of ids) {
          batch.hmget(keys.email(teamId, id), 'content', FIRST_EVENT_FIELD);
          batch.lrange(keys.emailEvents(teamId, id), 0, -1);
        }
        const replies = (await batch.exec()) ?? [];
        const out: { id: string; from: string; events: TimelineEvent[] }[] = [];
        ids.forEach((id, i) => {
          const [cErr, fields] = replies[2 * i] ?? [];
          const [eErr, events] = replies[2 * i + 1] ?? [];
          if (cErr) throw cErr;
          if (eErr) throw eErr;
          const [content, first] = fields as (string | null)[];
          if (typeof content !== 'string') return; // not this team's, or gone
          const from = (JSON.parse(content) as { from?: string }).from ?? '';
          out.push({ id, from, events: timelineOf<TimelineEvent>(first, events as string[]) });
        });
        return out;
      },
    };
  }
}

/**
 * The webhook dispatchers' side of the teams' events streams: a consumer group
 * (WEBHOOK_CONSUMER_GROUP) per stream, created with the team's first webhook. Each dispatcher
 * process is one consumer; it reads new entries, hands them on, then acknowledges them. Entries
 * a dispatcher read but never acknowledged (it died) stay pending in the group and are claimed
 * by another after `minIdleMs` (XAUTOCLAIM), so no event is lost to a crash.
 *
 * One stream per command (each is in its own team's slot): cluster-safe.
 */
import type { EmailEvent, TeamEvent } from '@petrel/contracts';
import { EVENTS_STREAM_FIELD, WEBHOOK_CONSUMER_GROUP, type Keys } from './keys.js';
import type { RedisClient } from './redis.js';

export interface StreamEvent {
  /** The stream entry id, to acknowledge. */
  entryId: string;
  /** The event, or null when the entry is unreadable (acknowledged and skipped). */
  event: EmailEvent | TeamEvent | null;
}

type RawEntry = [id: string, fields: string[]];

function toEvents(entries: RawEntry[] | null | undefined): StreamEvent[] {
  return (entries ?? []).flatMap((entry) => {
    if (!entry || !Array.isArray(entry[1])) return []; // an entry trimmed away while pending
    const [entryId, fields] = entry;
    const at = fields.indexOf(EVENTS_STREAM_FIELD);
    return [{ entryId, event: at >= 0 ? parseEvent(fields[at + 1]!) : null }];
  });
}

function parseEvent(json: string): EmailEvent | TeamEvent | null {
  try {
    return JSON.parse(json) as EmailEvent | TeamEvent;
  } catch {
    return null;
  }
}

const isNoGroup = (err: unknown): boolean => err instanceof Error && err.message.startsWith('NOGROUP');

export class WebhookEventStream {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /**
   * Up to `count` entries never delivered to any dispatcher; with `blockMs`, waits that long for
   * one when there is none (use a connection of its own: it blocks the connection meanwhile).
   */
  async read(teamId: string, consumer: string, count: number, blockMs?: number): Promise<StreamEvent[]> {
    const key = this.keys.events(teamId);
    const block = blockMs === undefined ? [] : ['BLOCK', blockMs];
    try {
      const reply = (await (this.redis.xreadgroup as (...args: (string | number)[]) => Promise<unknown>)(
        'GROUP',
        WEBHOOK_CONSUMER_GROUP,
        consumer,
        'COUNT',
        count,
        ...block,
        'STREAMS',
        key,
        '>',
      )) as [string, RawEntry[]][] | null;
      return toEvents(reply?.[0]?.[1]);
    } catch (err) {
      // The group is created with the team's first webhook; a stream that lost it (deleted by
      // hand, a restore) starts again from its end.
      if (!isNoGroup(err)) throw err;
      await this.redis.xgroup('CREATE', key, WEBHOOK_CONSUMER_GROUP, '$', 'MKSTREAM').catch(() => undefined);
      return [];
    }
  }

  /** Up to `count` entries another dispatcher read but did not acknowledge for `minIdleMs`. */
  async claimStale(
    teamId: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEvent[]> {
    try {
      const reply = (await this.redis.xautoclaim(
        this.keys.events(teamId),
        WEBHOOK_CONSUMER_GROUP,
        consumer,
        minIdleMs,
        '0-0',
        'COUNT',
        count,
      )) as [string, RawEntry[], string[]?];
      return toEvents(reply[1]);
    } catch (err) {
      if (isNoGroup(err)) return [];
      throw err;
    }
  }

  /**
   * Resets the idle time of entries this consumer still holds (XCLAIM to itself, JUSTID), so
   * another dispatcher's `claimStale` leaves deliveries that are slow, not dead, alone.
   */
  async touch(teamId: string, consumer: string, entryIds: readonly string[]): Promise<void> {
    if (entryIds.length === 0) return;
    try {
      await (this.redis.xclaim as (...args: (string | number)[]) => Promise<unknown>)(
        this.keys.events(teamId),
        WEBHOOK_CONSUMER_GROUP,
        consumer,
        0,
        ...entryIds,
        'JUSTID',
      );
    } catch (err) {
      if (!isNoGroup(err)) throw err;
    }
  }

  async ack(teamId: string, entryIds: readonly string[]): Promise<void> {
    if (entryIds.length === 0) return;
    await this.redis.xack(this.keys.events(teamId), WEBHOOK_CONSUMER_GROUP, ...entryIds);
  }

  /** Entries of the team's stream not yet read by the group (the dispatch lag), when Redis says. */
  async lag(teamId: string): Promise<number> {
    try {
      const groups = (await this.redis.xinfo('GROUPS', this.keys.events(teamId))) as unknown[][];
      for (const g of groups) {
        const at = g.indexOf('name');
        if (g[at + 1] !== WEBHOOK_CONSUMER_GROUP) continue;
        const lagAt = g.indexOf('lag');
        const lag = lagAt >= 0 ? Number(g[lagAt + 1]) : 0;
        return Number.isFinite(lag) ? lag : 0;
      }
    } catch {
      /* no stream yet */
    }
    return 0;
  }
}

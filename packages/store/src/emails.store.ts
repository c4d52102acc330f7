/**
 * Email records: one hash per email under its team, a creation-time index per team, and an
 * event timeline per email. Creation is queued onto a caller's transaction (so records, jobs and
 * the idempotency record commit together); events go through `recordEmailEvents`, which only
 * moves an email's status forward.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import {
  EMAIL_STATUSES,
  type EmailContent,
  type EmailEvent,
  type EmailStatus,
  type AttachmentInput,
} from '@petrel/contracts';
import { Keys } from './keys.js';
import { pageIndex } from './page-index.js';
import { defineScripts, type StoreCommands } from './scripts.js';

export type Lane = 'send' | 'broadcast';

export interface NewEmail {
  id: string;
  content: EmailContent;
  status: EmailStatus;
  lane: Lane;
  messageId: string;
  /** Set when the email is sent from a template: the id and the pinned version. */
  template?: { id: string; versionId: string };
  broadcastId?: string;
  /** The initial timeline entry (e.g. `queued` or `scheduled`). */
  event: EmailEvent;
}

export interface EmailRecord {
  id: string;
  teamId: string;
  createdAt: string;
  createdMs: number;
  status: EmailStatus;
  lane: Lane;
  messageId: string;
  content: Omit<EmailContent, 'attachments'>;
  scheduledAt: string | null;
  attempts: number;
  template: { id: string; versionId: string } | null;
  broadcastId: string | null;
  hasAttachments: boolean;
}

export const statusRank = (s: EmailStatus): number => EMAIL_STATUSES.indexOf(s);

/** Stream length kept for the webhook dispatcher (approximate trim). */
export const EVENTS_STREAM_MAXLEN = 1_000_000;

export class EmailsStore {
  private readonly redis: Redis & StoreCommands;

  constructor(
    redis: Redis,
    private readonly keys: Keys,
    private readonly retentionMs: number,
  ) {
    this.redis = defineScripts(redis);
  }

  /** Queue the creation of `emails` (absent ones only) onto `multi`. */
  createIn(multi: ChainableCommander, teamId: string, emails: NewEmail[], createdAt: Date): void {
    const n = emails.length;
    const keys: string[] = new Array<string>(1 + 2 * n);
    keys[0] = this.keys.emails(teamId);
    const createdMs = createdAt.getTime();
    const shared = [
      'team_id', teamId,
      'created_at', createdAt.toISOString(),
      'created_ms', String(createdMs),
      'attempts', '0',
    ]; // prettier-ignore
    const args: (string | number)[] = [n, createdMs, this.retentionMs, shared.length / 2, ...shared];
    for (let i = 0; i < n; i++) {
      const e = emails[i]!;
      keys[1 + i] = this.keys.email(teamId, e.id);
      keys[1 + n + i] = this.keys.emailEvents(teamId, e.id);
      const { attachments, ...rest } = e.content;
      const fields: string[] = [
        'status', e.status,
        'status_rank', String(statusRank(e.status)),
        'lane', e.lane,
        'message_id', e.messageId,
        'content', JSON.stringify(rest),
        'scheduled_at', e.content.scheduled_at ?? '',
      ]; // prettier-ignore
      if (attachments.length > 0) fields.push('attachments', JSON.stringify(attachments));
      if (e.template) fields.push('template_id', e.template.id, 'template_version_id', e.template.versionId);
      if (e.broadcastId) fields.push('broadcast_id', e.broadcastId);
      args.push(e.id, JSON.stringify(e.event), fields.length / 2);
      for (const f of fields) args.push(f);
    }
    (multi as unknown as StoreCommands).createEmails(keys.length, ...keys, ...args);
  }

  async get(teamId: string, emailId: string): Promise<EmailRecord | null> {
    const r = await this.redis.hgetall(this.keys.email(teamId, emailId));
    return r.id ? toRecord(r) : null;
  }

  /** The record plus its attachments, for the worker. */
  async getForSend(
    teamId: string,
    emailId: string,
  ): Promise<{ record: EmailRecord; attachments: AttachmentInput[] } | null> {
    const r = await this.redis.hgetall(this.keys.email(teamId, emailId));
    if (!r.id) return null;
    return {
      record: toRecord(r),
      attachments: r.attachments ? (JSON.parse(r.attachments) as AttachmentInput[]) : [],
    };
  }

  async getMany(teamId: string, ids: string[]): Promise<EmailRecord[]> {
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.email(teamId, id));
    const rows = (await pipe.exec()) ?? [];
    return rows
      .map(([, r]) => r as Record<string, string>)
      .filter((r) => r?.id)
      .map(toRecord);
  }

  /** Newest first. `after` pages towards older emails, `before` towards newer ones. */
  async list(
    teamId: string,
    opts: { limit: number; after?: string; before?: string },
  ): Promise<{ items: EmailRecord[]; hasMore: boolean } | null> {
    const page = await pageIndex(this.redis, this.keys.emails(teamId), opts);
    if (!page) return null;
    return { items: await this.getMany(teamId, page.ids), hasMore: page.hasMore };
  }

  async events(teamId: string, emailId: string): Promise<EmailEvent[]> {
    const rows = await this.redis.lrange(this.keys.emailEvents(teamId, emailId), 0, -1);
    return rows.map((r) => JSON.parse(r) as EmailEvent);
  }

  /**
   * Append `event` to the timeline, publish it for the webhook dispatcher, set `fields`, and move
   * the status to `status` if that is forward. Returns 'moved' | 'kept' | 'missing'.
   */
  recordEvent(
    teamId: string,
    emailId: string,
    status: EmailStatus,
    event: EmailEvent,
    fields: Record<string, string> = {},
  ): Promise<'moved' | 'kept' | 'missing'> {
    return this.recordEvents(teamId, emailId, [{ status, event }], fields);
  }

  /**
   * Several events in one script call (e.g. sent + delivered), appended and published in order;
   * `fields` are set on the record, and the status moves to the highest-ranked event's status
   * if that is forward.
   */
  async recordEvents(
    teamId: string,
    emailId: string,
    items: { status: EmailStatus; event: EmailEvent }[],
    fields: Record<string, string> = {},
  ): Promise<'moved' | 'kept' | 'missing'> {
    const names = Object.keys(fields);
    const args: (string | number)[] = [
      this.keys.email(teamId, emailId),
      this.keys.emailEvents(teamId, emailId),
      this.keys.events(),
      EVENTS_STREAM_MAXLEN,
      names.length,
    ];
    for (const n of names) args.push(n, fields[n]!);
    for (const it of items) args.push(it.status, statusRank(it.status), JSON.stringify(it.event));
    const res = await this.redis.recordEmailEvents(...args);
    return res === 1 ? 'moved' : res === 0 ? 'kept' : 'missing';
  }

  /** Set plain fields (no event), e.g. a new scheduled_at. Returns false if the email is gone. */
  async setFields(teamId: string, emailId: string, fields: Record<string, string>): Promise<boolean> {
    const key = this.keys.email(teamId, emailId);
    const flat = Object.entries(fields).flat();
    const res = await this.redis.eval(
      "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end redis.call('HSET', KEYS[1], unpack(ARGV)) return 1",
      1,
      key,
      ...flat,
    );
    return res === 1;
  }

  /** Cancel an email that is still scheduled (atomic check-and-set). */
  async cancelScheduled(
    teamId: string,
    emailId: string,
    event: EmailEvent,
  ): Promise<'canceled' | 'not_scheduled' | 'missing'> {
    const res = await this.redis.cancelScheduled(
      this.keys.email(teamId, emailId),
      this.keys.emailEvents(teamId, emailId),
      JSON.stringify(event),
      statusRank('canceled'),
    );
    return res === 1 ? 'canceled' : res === 0 ? 'not_scheduled' : 'missing';
  }

  async incrementAttempts(teamId: string, emailId: string): Promise<number> {
    return this.redis.hincrby(this.keys.email(teamId, emailId), 'attempts', 1);
  }
}

function toRecord(r: Record<string, string>): EmailRecord {
  return {
    id: r.id ?? '',
    teamId: r.team_id ?? '',
    createdAt: r.created_at ?? '',
    createdMs: Number(r.created_ms ?? 0),
    status: (r.status as EmailStatus) ?? 'queued',
    lane: (r.lane as Lane) ?? 'send',
    messageId: r.message_id ?? '',
    content: JSON.parse(r.content ?? '{}') as Omit<EmailContent, 'attachments'>,
    scheduledAt: r.scheduled_at || null,
    attempts: Number(r.attempts ?? 0),
    template: r.template_id ? { id: r.template_id, versionId: r.template_version_id ?? '' } : null,
    broadcastId: r.broadcast_id || null,
    hasAttachments: Boolean(r.attachments),
  };
}

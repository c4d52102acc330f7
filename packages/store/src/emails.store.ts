/**
 * Email records: one hash per email under its team, a creation-time index per team, and an
 * event timeline per email (its first event a field of the record, the later ones a list:
 * timelineOf). Creation writes the records together with their outbox entries
 * (`petrelAcceptEmails`, step 1 of acceptance: the jobs follow, see OutboxStore); events go
 * through `petrelRecordEmailEvents`, which only moves an email's status forward.
 */
import type { RedisClient } from './redis.js';
import {
  type EmailContent,
  type EmailEvent,
  type EmailStatus,
  type AttachmentInput,
  type SendLane,
} from '@petrel/contracts';
import { EVENTS_STREAM_MAXLEN, Keys } from './keys.js';
import { pageIndex } from './page-index.js';
import { outboxJobMember } from './outbox.store.js';
import { defineScripts, pipeline, type QueuedStoreCommands, type StoreCommands } from './scripts.js';
import type { ChainableCommander } from 'ioredis';
import { eventJsonHead, sequencedEventJson } from './email-event-json.js';
import { FIRST_EVENT_FIELD, timelineOf } from './email-timeline.js';
import {
  emailSearchTerms,
  emailStatusRank,
  fromDomain,
  isOncePerEmail,
  mailboxKey,
  type ContactValues,
  type OutboxJob,
  type RecordedEventKind,
  type RecordedWithEvents,
} from '@petrel/core';
import { EmailSearch } from './email-search.js';
import { statsBucket } from './email-stats.js';
import { eventCountArgs, queueReceivedCounts } from './email-metrics.store.js';
import { queueUsageCount } from './usage.store.js';

/**
 * What every email store is built with besides its retention. Required, not defaulted: a process
 * that forgot them would keep the hourly counters its events write for another length of time
 * than DASHBOARD_STATS_RETENTION_DAYS says (`emailStoreOptions(config)` in packages/config).
 */
export interface EmailsStoreOptions {
  /** How long the hourly email counters (GET /stats/emails) are kept after their hour, in ms. */
  statsRetentionMs: number;
  /** The counters' and search indexes' clock (tests move it); default `Date`. */
  clock?: { now(): number };
}

export interface NewEmail {
  id: string;
  content: EmailContent;
  status: EmailStatus;
  lane: SendLane;
  /** When its send job is due (ms since the epoch; 0 = at once): the outbox entry carries it. */
  dueMs: number;
  messageId: string;
  /** Set when the email is sent from a template: the id and the pinned version. */
  template?: { id: string; versionId: string };
  broadcastId?: string;
  /** The initial timeline entry (e.g. `queued` or `scheduled`). */
  event: EmailEvent;
  /** The first email id of the group job that sends it (core's commitAcceptance), when in one. */
  group?: string;
}

export interface EmailRecord {
  id: string;
  teamId: string;
  createdAt: string;
  createdMs: number;
  status: EmailStatus;
  lane: SendLane;
  messageId: string;
  content: Omit<EmailContent, 'attachments'>;
  scheduledAt: string | null;
  attempts: number;
  template: { id: string; versionId: string } | null;
  broadcastId: string | null;
  /** A broadcast's email: the contact it was fanned out to. */
  contactId: string | null;
  /** A broadcast's email: what its placeholders read of the contact at the fan-out (when any). */
  contactValues?: ContactValues;
  hasAttachments: boolean;
}

/** One email's events to record with others of its team (EmailsStore.recordEventsMany). */
export interface RecordEventsCall<S extends RecordedEventKind = EmailStatus> {
  emailId: string;
  items: { status: S; event: EmailEvent }[];
  fields?: Record<string, string>;
  also?: RecordedWithEvents;
}

/** What getForSend gives for an email: its record and attachments, null when it is gone. */
type SendableEmail = { record: EmailRecord; attachments: AttachmentInput[] } | null;

/** The record field naming the group job an email was accepted into (its first email id). */
export const SEND_GROUP_FIELD = 'send_group';

/** recordEvents's reply from petrelRecordEmailEvents's (1 moved, 0 kept, -1 the record gone). */
const recordedAs = (reply: number): 'moved' | 'kept' | 'missing' =>
  reply === 1 ? 'moved' : reply === 0 ? 'kept' : 'missing';

/** The rank of an email status: its place in core's email table, where a status only moves forward. */
export const statusRank = emailStatusRank;

export class EmailsStore {
  private readonly redis: RedisClient & StoreCommands;
  /** The list page's search indexes (email-search.ts), written with the records. */
  readonly search: EmailSearch;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    private readonly retentionMs: number,
    private readonly dashboard: EmailsStoreOptions,
  ) {
    this.redis = defineScripts(redis);
    this.search = new EmailSearch(this.redis, keys, retentionMs, dashboard.clock);
  }

  /**
   * Step 1 of acceptance, one script in the team's slot: create the records of `emails` (absent
   * ones only: a retried request leaves existing records as they are) and write the team's
   * outbox entries of their jobs — `outbox` (one per group job, one per own job), or without it
   * one per email (its lane and due time). Returns how many records were created.
   */
  async stage(
    teamId: string,
    emails: NewEmail[],
    createdAt: Date,
    outbox?: readonly OutboxJob[],
  ): Promise<number> {
    const n = emails.length;
    const keys: string[] = new Array<string>(4 + n);
    keys[0] = this.keys.emails(teamId);
    keys[1] = this.keys.outbox(teamId);
    const createdMs = createdAt.getTime();
    const shared = [
      'team_id', teamId,
      'created_at', createdAt.toISOString(),
      'created_ms', String(createdMs),
      'attempts', '0',
      // the first event's sequence number: later scripts count on from here
      'seq', '1',
    ]; // prettier-ignore
    // the sending domain of each email (GET /emails/metrics counts per domain), read once per from
    const domains = new Map<string, string>();
    const received = new Map<string, number>();
    const domainOf = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const e = emails[i]!;
      let domain = domains.get(e.content.from);
      if (domain === undefined) domains.set(e.content.from, (domain = fromDomain(e.content.from) ?? ''));
      received.set(domain, (received.get(domain) ?? 0) + 1);
      domainOf[i] = domain;
      keys[2 + i] = this.keys.email(teamId, e.id);
    }
    // a field whose value every email of the request has (most often its status, lane, sending
    // domain and group job) is sent once, with the shared ones; the others go per email
    const own: ((e: NewEmail, i: number) => string)[] = [];
    const ownNames: string[] = [];
    let groupShared = false;
    for (const [name, value] of stagedColumns(domainOf)) {
      const v = n > 0 ? value(emails[0]!, 0) : undefined;
      let same = v !== undefined;
      for (let i = 1; same && i < n; i++) same = value(emails[i]!, i) === v;
      if (same) shared.push(name, v!);
      // the group job is an optional field: an email outside it has none (not an empty one)
      if (name === SEND_GROUP_FIELD) groupShared = same;
      else if (!same) {
        ownNames.push(name);
        own.push(value as (e: NewEmail, i: number) => string);
      }
    }
    ownNames.push('message_id', 'content', FIRST_EVENT_FIELD);
    const args: (string | number)[] = [
      n, createdMs, this.retentionMs, shared.length / 2, ...shared, ownNames.length, ...ownNames,
    ]; // prettier-ignore
    for (let i = 0; i < n; i++) {
      const e = emails[i]!;
      const { content } = e;
      args.push(e.id, e.dueMs);
      for (const value of own) args.push(value(e, i));
      args.push(
        e.messageId,
        // the content less its attachments (stored apart): a spread with the member undefined
        // writes the same JSON as a rest copy (JSON.stringify skips undefined members) for less
        // CPU than V8's rest-with-excluded-keys
        JSON.stringify({ ...content, attachments: undefined }),
        // FIRST_EVENT_FIELD: the first timeline event, numbered 1
        sequencedEventJson(e.event, 1),
      );
      // the optional fields, as name/value pairs after their count
      const extrasAt = args.push(0) - 1;
      if (content.attachments.length > 0) args.push('attachments', JSON.stringify(content.attachments));
      if (e.template) args.push('template_id', e.template.id, 'template_version_id', e.template.versionId);
      if (e.broadcastId) args.push('broadcast_id', e.broadcastId);
      if (e.group && !groupShared) args.push(SEND_GROUP_FIELD, e.group);
      args[extrasAt] = (args.length - extrasAt - 1) / 2;
    }
    if (outbox) args.push(outbox.length, ...outbox.map(outboxJobMember));
    // the unfinished indexes (stuck-email watchdog), after the records
    keys[2 + n] = this.keys.unfinishedEmails(teamId, 'send');
    keys[3 + n] = this.keys.unfinishedEmails(teamId, 'broadcast');
    // the search indexes right behind the records, in the same round trip (before any job)
    const batch = pipeline(this.redis, 'EmailsStore.stage') as QueuedStoreCommands & ChainableCommander;
    batch.petrelAcceptEmails(keys.length, ...keys, ...args);
    this.search.queueIndex(
      batch,
      teamId,
      emails.map((e) => ({ id: e.id, terms: emailSearchTerms(e.content), status: e.status })),
      createdMs,
    );
    // GET /usage's emails sent today and this month (a crash-interrupted request retried with its
    // Idempotency-Key counts twice: the count errs high, never low)
    queueUsageCount(batch, this.keys, teamId, 'emails-sent', n, createdMs);
    // GET /emails/metrics's `received`, per request and sending domain
    queueReceivedCounts(batch, this.keys, teamId, createdMs, this.dashboard.statsRetentionMs, received);
    const [[err, created] = [], [indexErr] = []] = (await batch.exec()) ?? [];
    if (err) throw err;
    // the records are in (the outbox relay sends them whatever the client does next): an index
    // that failed is still an error to see, not to swallow
    if (indexErr) throw indexErr;
    return created as number;
  }

  async get(teamId: string, emailId: string): Promise<EmailRecord | null> {
    const r = await this.redis.hgetall(this.keys.email(teamId, emailId));
    return r.id ? toRecord(r) : null;
  }

  /** The record plus its attachments, for the worker. */
  async getForSend(teamId: string, emailId: string): Promise<SendableEmail> {
    return toSendable(await this.redis.hgetall(this.keys.email(teamId, emailId)));
  }

  /**
   * getForSend of several emails of one team in one script call (their records share the
   * team's slot): per email, in order, what getForSend would have returned.
   */
  async getManyForSend(teamId: string, emailIds: readonly string[]): Promise<SendableEmail[]> {
    const keys = emailIds.map((id) => this.keys.email(teamId, id));
    const replies = await this.redis.petrelReadEmails(keys.length, ...keys);
    return replies.map((pairs) => {
      const r: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) r[pairs[i]!] = pairs[i + 1]!;
      return toSendable(r);
    });
  }

  async getMany(teamId: string, ids: string[]): Promise<EmailRecord[]> {
    if (ids.length === 0) return [];
    const pipe = pipeline(this.redis, 'EmailsStore.getMany');
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
    opts: { limit: number; after?: string; before?: string; terms?: readonly string[] },
  ): Promise<{ items: EmailRecord[]; hasMore: boolean } | null> {
    // with filters (the dashboard's search), from the search indexes
    const page = opts.terms?.length
      ? await this.search.search(teamId, opts.terms, opts)
      : await pageIndex(this.redis, this.keys.emails(teamId), opts);
    if (!page) return null;
    return { items: await this.getMany(teamId, page.ids), hasMore: page.hasMore };
  }

  /** The record and its timeline in one round trip (both in the team's slot), for GET /emails/:id. */
  async getWithEvents(
    teamId: string,
    emailId: string,
  ): Promise<{ record: EmailRecord; events: EmailEvent[] } | null> {
    const pipe = pipeline(this.redis, 'EmailsStore.getWithEvents');
    pipe.hgetall(this.keys.email(teamId, emailId));
    pipe.lrange(this.keys.emailEvents(teamId, emailId), 0, -1);
    const [[recErr, rec] = [], [evErr, rows] = []] = (await pipe.exec()) ?? [];
    if (recErr) throw recErr;
    if (evErr) throw evErr;
    const r = rec as Record<string, string>;
    if (!r?.id) return null;
    return { record: toRecord(r), events: timelineOf(r[FIRST_EVENT_FIELD], rows as string[]) };
  }

  /** The email's timeline, oldest first (empty for an email that is gone). */
  async events(teamId: string, emailId: string): Promise<EmailEvent[]> {
    const pipe = pipeline(this.redis, 'EmailsStore.events');
    pipe.hget(this.keys.email(teamId, emailId), FIRST_EVENT_FIELD);
    pipe.lrange(this.keys.emailEvents(teamId, emailId), 0, -1);
    const [[firstErr, first] = [], [evErr, rows] = []] = (await pipe.exec()) ?? [];
    if (firstErr) throw firstErr;
    if (evErr) throw evErr;
    return timelineOf(first, rows as string[]);
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
   * Several events in one script call (e.g. sent + delivered), appended and published in order,
   * each numbered with the email's next `data.sequence`; `fields` are set on the record, and the
   * status moves to the highest-ranked event's status if that is forward.
   */
  async recordEvents(
    teamId: string,
    emailId: string,
    items: { status: EmailStatus; event: EmailEvent }[],
    fields: Record<string, string> = {},
    also: RecordedWithEvents = {},
  ): Promise<'moved' | 'kept' | 'missing'> {
    return recordedAs(await this.runRecordEvents(teamId, emailId, items, fields, also));
  }

  /**
   * Record the email's unsubscribe (`email.unsubscribed`, timeline only) and count it for the
   * team, its sending domain and its broadcast, once per email: 'repeat' when it already has one.
   */
  async recordUnsubscribe(
    teamId: string,
    emailId: string,
    event: EmailEvent,
  ): Promise<'recorded' | 'repeat' | 'missing'> {
    const res = await this.runRecordEvents(teamId, emailId, [{ status: 'unsubscribed', event }], {});
    return res === 2 ? 'repeat' : res === -1 ? 'missing' : 'recorded';
  }

  private async runRecordEvents(
    teamId: string,
    emailId: string,
    items: { status: RecordedEventKind; event: EmailEvent }[],
    fields: Record<string, string>,
    also: RecordedWithEvents = {},
  ): Promise<number> {
    const { keys, args } = this.recordEventsCall(teamId, { emailId, items, fields, also });
    return this.redis.petrelRecordEmailEvents(keys.length, ...keys, ...args);
  }

  /**
   * recordEvents of several emails of one team in one script call (their keys share the team's
   * slot): per email, in order, what recordEvents would have returned, or the error its part
   * raised (the other emails' writes and results are as they would be alone). The keys the
   * emails share (the team's stream, indexes and counters) are sent once.
   */
  async recordEventsMany(
    teamId: string,
    calls: readonly RecordEventsCall[],
  ): Promise<('moved' | 'kept' | 'missing' | Error)[]> {
    const keys: string[] = [];
    const index = new Map<string, number>();
    const args: (string | number)[] = [calls.length];
    for (const call of calls) {
      const one = this.recordEventsCall(teamId, call);
      args.push(one.keys.length);
      for (const key of one.keys) {
        let i = index.get(key);
        if (i === undefined) index.set(key, (i = keys.push(key)));
        args.push(i);
      }
      args.push(one.args.length, ...one.args);
    }
    const replies = await this.redis.petrelRecordManyEmailEvents(keys.length, ...keys, ...args);
    return replies.map((r) => (typeof r === 'string' ? new Error(r.replace(/^ERR /, '')) : recordedAs(r)));
  }

  /** The KEYS and ARGV of petrelRecordEmailEvents for one email's events. */
  private recordEventsCall(
    teamId: string,
    { emailId, items, fields = {}, also = {} }: RecordEventsCall<RecordedEventKind>,
  ): { keys: string[]; args: (string | number)[] } {
    const names = Object.keys(fields);
    const args: (string | number)[] = [EVENTS_STREAM_MAXLEN, names.length];
    for (const n of names) args.push(n, fields[n]!);
    const stats = statsBucket(
      this.keys,
      teamId,
      (this.dashboard.clock ?? Date).now(),
      this.dashboard.statsRetentionMs,
    );
    // the metrics' counters and a broadcast's indexes, counted by the same script (email-metrics.store.ts)
    const counts = eventCountArgs(this.keys, teamId, items, stats, this.retentionMs);
    items.forEach((it, i) =>
      args.push(
        it.status,
        // a once-per-email event moves no status: below every rank
        isOncePerEmail(it.status) ? -1 : statusRank(it.status),
        eventJsonHead(it.event),
        ...counts.perEvent[i]!,
      ),
    );
    args.push(...counts.tail);
    // the soft-bounce streaks the outcome ends (core deliver/soft-bounces.ts): KEYS[25..], same slot
    const streaks = (also.endSoftBounceStreaks ?? []).map((a) =>
      this.keys.softBounceStreak(teamId, mailboxKey(a)),
    );
    const keys = [
      this.keys.email(teamId, emailId),
      this.keys.emailEvents(teamId, emailId),
      this.keys.events(teamId),
      this.keys.unfinishedEmails(teamId, 'send'),
      this.keys.unfinishedEmails(teamId, 'broadcast'),
      stats.key,
      ...this.search.statusKeys(teamId),
      ...counts.keys,
      ...streaks,
    ];
    return { keys, args };
  }

  /** Set plain fields (no event), e.g. a new scheduled_at. Returns false if the email is gone. */
  async setFields(teamId: string, emailId: string, fields: Record<string, string>): Promise<boolean> {
    const res = await this.redis.petrelSetFieldsIfExists(
      this.keys.email(teamId, emailId),
      ...Object.entries(fields).flat(),
    );
    // a rescheduled email's entry in the unfinished index moves to its new due time (XX: only
    // an entry that exists, in whichever lane's index holds it)
    const dueMs = fields.scheduled_at ? Date.parse(fields.scheduled_at) : NaN;
    if (res === 1 && Number.isFinite(dueMs)) {
      const pipe = pipeline(this.redis, 'EmailsStore.setFields');
      for (const lane of ['send', 'broadcast'] as const)
        pipe.zadd(this.keys.unfinishedEmails(teamId, lane), 'XX', dueMs, emailId);
      await pipe.exec();
    }
    return res === 1;
  }

  /** Cancel an email that is still scheduled (atomic check-and-set). */
  async cancelScheduled(
    teamId: string,
    emailId: string,
    event: EmailEvent,
  ): Promise<'canceled' | 'not_scheduled' | 'missing'> {
    const res = await this.redis.petrelCancelScheduledEmail(
      this.keys.email(teamId, emailId),
      this.keys.emailEvents(teamId, emailId),
      this.keys.unfinishedEmails(teamId, 'send'),
      this.keys.unfinishedEmails(teamId, 'broadcast'),
      this.search.termKey(teamId, 'status:scheduled'),
      this.search.termKey(teamId, 'status:canceled'),
      eventJsonHead(event),
      statusRank('canceled'),
    );
    return res === 1 ? 'canceled' : res === 0 ? 'not_scheduled' : 'missing';
  }

  /**
   * Delete a sent email (core emails/delete-email.ts) with its content, attachments, timeline
   * and index entries, in one script (the team's slot) that checks the status is still
   * deletable. Its term indexes are recomputed from its content, which never changes.
   */
  async deleteFinished(teamId: string, emailId: string): Promise<'deleted' | 'not_deletable' | 'missing'> {
    const [content, broadcastId, createdMs] = await this.redis.hmget(
      this.keys.email(teamId, emailId),
      'content',
      'broadcast_id',
      'created_ms',
    );
    if (typeof content !== 'string') return 'missing';
    const c = JSON.parse(content) as Partial<EmailContent>;
    const terms = emailSearchTerms({
      to: c.to ?? [],
      cc: c.cc ?? [],
      bcc: c.bcc ?? [],
      tags: c.tags ?? [],
      subject: c.subject ?? '',
    });
    const search = this.search.deleteCall(teamId, terms, Number(createdMs ?? 0));
    const keys = [
      this.keys.email(teamId, emailId),
      this.keys.emailEvents(teamId, emailId),
      this.keys.emails(teamId),
      this.keys.unfinishedEmails(teamId, 'send'),
      this.keys.unfinishedEmails(teamId, 'broadcast'),
      this.keys.broadcastRecipients(teamId, broadcastId ?? ''),
      ...search.keys,
    ];
    const res = await this.redis.petrelDeleteEmail(keys.length, ...keys, broadcastId ?? '', ...search.args);
    return res === 1 ? 'deleted' : res === 0 ? 'not_deletable' : 'missing';
  }

  /**
   * Remove from the team's listing the ids of emails created before `cutoffMs`: their records
   * have expired (retention), and a listing must not page through ids that no longer resolve.
   * Returns how many were removed.
   */
  async trimExpired(teamId: string, cutoffMs: number): Promise<number> {
    const n = await this.redis.zremrangebyscore(this.keys.emails(teamId), '-inf', `(${cutoffMs}`);
    // the status indexes list the same ids (the other search indexes trim themselves)
    await this.search.trimStatusIndexes(teamId, cutoffMs);
    return n;
  }

  async incrementAttempts(teamId: string, emailId: string): Promise<number> {
    return this.redis.hincrby(this.keys.email(teamId, emailId), 'attempts', 1);
  }
}

/**
 * The record fields every accepted email has whose value is often the same for the whole
 * request (`stage` sends such a value once), with how each email's value is read; the group
 * job's field is optional (undefined: the email has none).
 */
function stagedColumns(
  domainOf: readonly string[],
): [name: string, value: (e: NewEmail, i: number) => string | undefined][] {
  return [
    ['status', (e) => e.status],
    ['status_rank', (e) => String(statusRank(e.status))],
    ['lane', (e) => e.lane],
    ['scheduled_at', (e) => e.content.scheduled_at ?? ''],
    ['from_domain', (_, i) => domainOf[i]],
    [SEND_GROUP_FIELD, (e) => e.group],
  ];
}

/** A record's fields as getForSend gives them. */
function toSendable(r: Record<string, string>): SendableEmail {
  if (!r.id) return null;
  return {
    record: toRecord(r),
    attachments: r.attachments ? (JSON.parse(r.attachments) as AttachmentInput[]) : [],
  };
}

function toRecord(r: Record<string, string>): EmailRecord {
  return {
    id: r.id ?? '',
    teamId: r.team_id ?? '',
    createdAt: r.created_at ?? '',
    createdMs: Number(r.created_ms ?? 0),
    status: (r.status as EmailStatus) ?? 'queued',
    lane: (r.lane as SendLane) ?? 'send',
    messageId: r.message_id ?? '',
    content: JSON.parse(r.content ?? '{}') as Omit<EmailContent, 'attachments'>,
    scheduledAt: r.scheduled_at || null,
    attempts: Number(r.attempts ?? 0),
    template: r.template_id ? { id: r.template_id, versionId: r.template_version_id ?? '' } : null,
    broadcastId: r.broadcast_id || null,
    contactId: r.contact_id || null,
    ...(r.contact_values && { contactValues: JSON.parse(r.contact_values) as ContactValues }),
    hasAttachments: Boolean(r.attachments),
  };
}

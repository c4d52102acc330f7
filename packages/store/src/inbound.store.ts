/**
 * Received (inbound) emails of a team: a record per email (parsed fields, headers and
 * attachment metadata), the raw message beside it compressed with gzip (RFC 1952; node:zlib),
 * and a listing by reception time. Record and raw message expire after the inbound retention
 * (INBOUND_RETENTION_DAYS); the listing drops expired ids whenever an email is stored.
 *
 * A received email is written once, with its `email.received` event, by one script in the
 * team's slot (inbound.scripts.ts), and never changes. Attachment content is not stored apart:
 * it is read back from the raw message (core's inboundAttachmentContent), so Redis holds each
 * message once.
 *
 * SentEmailsLocator is the bounce processor's view of SENT emails: a report names an email id
 * only, so the team holding it is found by looking in each team (the teams set, one EXISTS per
 * team; a deployment has few teams).
 */
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { EmailEvent, InboundAttachment, InboundEmailRecord } from '@petrel/contracts';
import type {
  EmailToDeliver,
  InboundEmailsWriter,
  Page,
  PageRequest,
  SentEmails,
  StatusEvent,
} from '@petrel/core';
import { UUID_RE, idKey } from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN, type Keys } from './keys.js';
import { pageIndex } from './page-index.js';
import type { RedisClient } from './redis.js';
import { pipeline } from './scripts.js';
import { RetainedTeamStore } from './team-store.js';
import { countUsage } from './usage.store.js';
import { sequencedEventJson } from './email-event-json.js';
import type { EmailsStore } from './emails.store.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** A listed received email: the record without bodies and headers (Resend's list item). */
export type InboundEmailSummary = Omit<InboundEmailRecord, 'html' | 'text' | 'headers' | 'size'>;

const JSON_FIELDS = ['to', 'cc', 'bcc', 'reply_to', 'received_for', 'attachments'] as const;
const LIST_FIELDS = ['id', 'created_at', 'from', 'subject', 'message_id', ...JSON_FIELDS] as const;

export class InboundStore extends RetainedTeamStore implements InboundEmailsWriter {
  async save(teamId: string, r: InboundEmailRecord, raw: Buffer, event: EmailEvent): Promise<void> {
    const compressed = await gzipAsync(raw);
    const createdMs = Date.parse(r.created_at);
    const fields: (string | number)[] = [
      'id', r.id,
      'created_at', r.created_at,
      'created_ms', createdMs,
      'from', r.from,
      'subject', r.subject,
      'message_id', r.message_id,
      'headers', JSON.stringify(r.headers),
      'size', r.size,
      ...JSON_FIELDS.flatMap((f) => [f, JSON.stringify(r[f])]),
    ]; // prettier-ignore
    if (r.html !== null) fields.push('html', r.html);
    if (r.text !== null) fields.push('text', r.text);
    if (r.authentication) fields.push('authentication', JSON.stringify(r.authentication));
    await this.redis.petrelStoreInboundEmail(
      this.keys.inboundEmail(teamId, r.id),
      this.keys.inboundRaw(teamId, r.id),
      this.keys.inboundEmails(teamId),
      this.keys.events(teamId),
      r.id,
      createdMs,
      this.retentionMs,
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      // a received email has one event: the first of its sequence
      sequencedEventJson(event, 1),
      compressed,
      ...fields,
    );
    // GET /usage's emails received today and this month
    await countUsage(this.redis, this.keys, teamId, 'emails-received', 1, createdMs);
  }

  async get(teamId: string, id: string): Promise<InboundEmailRecord | null> {
    if (!UUID_RE.test(id)) return null;
    const h = await this.redis.hgetall(this.keys.inboundEmail(teamId, idKey(id)));
    if (!h.id) return null;
    return {
      ...summary(h),
      html: h.html ?? null,
      text: h.text ?? null,
      headers: JSON.parse(h.headers ?? '{}') as Record<string, string>,
      size: Number(h.size ?? 0),
      ...(h.authentication && {
        authentication: JSON.parse(h.authentication) as InboundEmailRecord['authentication'],
      }),
    };
  }

  /** The raw message as received, or null when the email is unknown or expired. */
  async raw(teamId: string, id: string): Promise<Buffer | null> {
    if (!UUID_RE.test(id)) return null;
    const compressed = await this.redis.getBuffer(this.keys.inboundRaw(teamId, idKey(id)));
    return compressed ? gunzipAsync(compressed) : null;
  }

  /** Newest first; null when the cursor names no listed email. */
  async list(teamId: string, page: PageRequest): Promise<Page<InboundEmailSummary> | null> {
    const found = await pageIndex(this.redis, this.keys.inboundEmails(teamId), page);
    if (!found) return null;
    if (found.ids.length === 0) return { items: [], hasMore: false };
    const pipe = pipeline(this.redis, 'InboundStore.list');
    for (const id of found.ids) pipe.hmget(this.keys.inboundEmail(teamId, id), ...LIST_FIELDS);
    const rows = (await pipe.exec()) ?? [];
    const items: InboundEmailSummary[] = [];
    for (const [err, values] of rows) {
      if (err) throw err;
      const v = values as (string | null)[];
      if (!v[0]) continue; // expired since it was listed
      items.push(summary(Object.fromEntries(LIST_FIELDS.map((f, i) => [f, v[i] ?? undefined]))));
    }
    return { items, hasMore: found.hasMore };
  }
}

function summary(h: Record<string, string | undefined>): InboundEmailSummary {
  const list = (f: string) => JSON.parse(h[f] ?? '[]') as string[];
  return {
    id: h.id ?? '',
    created_at: h.created_at ?? '',
    from: h.from ?? '',
    to: list('to'),
    cc: list('cc'),
    bcc: list('bcc'),
    reply_to: list('reply_to'),
    received_for: list('received_for'),
    subject: h.subject ?? '',
    message_id: h.message_id ?? '',
    attachments: JSON.parse(h.attachments ?? '[]') as InboundAttachment[],
  };
}

/** The bounce processor's port over sent emails (see the header). */
export class SentEmailsLocator implements SentEmails {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly emails: EmailsStore,
  ) {}

  async find(emailId: string): Promise<EmailToDeliver | null> {
    if (!UUID_RE.test(emailId)) return null;
    const id = idKey(emailId);
    const teams = await this.redis.smembers(this.keys.teams());
    // one single-key command per team: on a cluster each goes to its team's node
    const held = await Promise.all(teams.map((t) => this.redis.exists(this.keys.email(t, id))));
    const teamId = teams.find((_, i) => held[i] === 1);
    return teamId === undefined ? null : this.emails.get(teamId, id);
  }

  recordEvents(teamId: string, emailId: string, items: StatusEvent[]): Promise<unknown> {
    return this.emails.recordEvents(teamId, emailId, items);
  }
}

/**
 * In-memory implementations of the deliver-email ports (packages/core/src/deliver/ports.ts), for
 * unit tests of the use-case and of anything built on it: a record store with the Redis store's
 * forward-only status rule, template versions, a MIME builder that writes a readable stand-in,
 * a scripted SMTP sender, a clock that only moves when told, sequential ids, and an observer that
 * remembers what it saw.
 */
import { type AttachmentInput, type EmailContent, type EmailEvent } from '@petrel/contracts';
import type {
  BuildResult,
  Clock,
  CompiledTemplateVersion,
  DeliverDeps,
  DeliverObserver,
  DeliverOutcome,
  EmailRecordStore,
  EmailToDeliver,
  IdSource,
  MessageBuilder,
  MessageSender,
  MessageToBuild,
  OutgoingEmail,
  RecordedWithEvents,
  RejectedRecipient,
  SendResult,
  SoftBounceStreaks,
  StatusEvent,
  TemplateVersions,
  BroadcastPaused,
} from '@petrel/core';
import { canMove, EMAIL_MACHINE } from '@petrel/core';

import { MemoryAudienceState, readableUnsubscribeLinks } from './recipient-states.js';
import { MemoryContactProperties, MemoryContacts } from './contacts.js';
import { MemoryBroadcastReader } from './fanout.js';
import { memoryTracking, type MemoryTrackingSettings } from './tracking.js';

/** An email record as the worker loads it, with a plain send's defaults. */
export function emailToDeliver(
  overrides: Partial<Omit<EmailToDeliver, 'content'>> & { content?: Partial<EmailToDeliver['content']> } = {},
): EmailToDeliver {
  const { content, ...rest } = overrides;
  const id = rest.id ?? '0190a6b2-7c3d-7000-8000-000000000001';
  return {
    id,
    teamId: 'team-1',
    createdAt: '2026-01-02T03:04:05.000Z',
    createdMs: Date.parse('2026-01-02T03:04:05.000Z'),
    status: 'queued',
    messageId: `<${id}@acme.test>`,
    attempts: 0,
    template: null,
    broadcastId: null,
    contactId: null,
    ...rest,
    content: {
      from: 'Acme <hello@acme.test>',
      to: ['ada@example.test'],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Hello',
      html: '<p>Hello</p>',
      headers: {},
      tags: [],
      ...content,
    },
  };
}

interface StoredEmail {
  record: EmailToDeliver;
  attachments: AttachmentInput[];
  fields: Record<string, string>;
  timeline: EmailEvent[];
}

/**
 * Email records in a Map; `published` is what the Redis store would add to the events stream.
 * `streaks`: where the soft-bounce streaks a recorded outcome ends are kept (the Redis store
 * deletes them in the script that records the events).
 */
export class MemoryDeliveryRecords implements EmailRecordStore {
  readonly published: EmailEvent[] = [];
  private readonly emails = new Map<string, StoredEmail>();
  streaks: Pick<SoftBounceStreaks, 'reset'> | undefined;

  put(record: EmailToDeliver, attachments: AttachmentInput[] = []): this {
    this.emails.set(`${record.teamId}:${record.id}`, { record, attachments, fields: {}, timeline: [] });
    return this;
  }

  /** The record as it is now (status and attempts updated by the writes). */
  get(teamId: string, emailId: string): EmailToDeliver | undefined {
    return this.emails.get(`${teamId}:${emailId}`)?.record;
  }

  timeline(teamId: string, emailId: string): EmailEvent[] {
    return this.emails.get(`${teamId}:${emailId}`)?.timeline ?? [];
  }

  fields(teamId: string, emailId: string): Record<string, string> {
    return this.emails.get(`${teamId}:${emailId}`)?.fields ?? {};
  }

  async getForSend(teamId: string, emailId: string) {
    const e = this.emails.get(`${teamId}:${emailId}`);
    return e ? { record: structuredClone(e.record), attachments: e.attachments } : null;
  }

  async recordEvents(
    teamId: string,
    emailId: string,
    items: StatusEvent[],
    fields: Record<string, string> = {},
    also: RecordedWithEvents = {},
  ): Promise<'moved' | 'kept' | 'missing'> {
    if (also.endSoftBounceStreaks?.length) await this.streaks?.reset(teamId, also.endSoftBounceStreaks);
    const e = this.emails.get(`${teamId}:${emailId}`);
    if (!e) return 'missing';
    this.setOn(e, fields);
    let moved = false;
    for (const { status, event } of items) {
      e.timeline.push(event);
      this.published.push(event);
      if (canMove(EMAIL_MACHINE, e.record.status, status)) {
        e.record = { ...e.record, status };
        moved = true;
      }
    }
    return moved ? 'moved' : 'kept';
  }

  async setFields(teamId: string, emailId: string, fields: Record<string, string>): Promise<boolean> {
    const e = this.emails.get(`${teamId}:${emailId}`);
    if (!e) return false;
    this.setOn(e, fields);
    return true;
  }

  private setOn(e: StoredEmail, fields: Record<string, string>): void {
    Object.assign(e.fields, fields);
    if (fields.attempts !== undefined) e.record = { ...e.record, attempts: Number(fields.attempts) };
  }
}

/** Template versions by (team, template, version). */
export class MemoryTemplateVersions implements TemplateVersions {
  private readonly versions = new Map<string, CompiledTemplateVersion>();

  put(teamId: string, templateId: string, versionId: string, version: CompiledTemplateVersion): this {
    this.versions.set(`${teamId}:${templateId}:${versionId}`, version);
    return this;
  }

  async getCompiledVersion(teamId: string, templateId: string, versionId: string) {
    return this.versions.get(`${teamId}:${templateId}:${versionId}`) ?? null;
  }
}

/**
 * A stand-in MIME builder: the raw message is the headers Petrel would write plus the html or
 * text, readable in assertions; `refuse(reason)` makes the next builds fail as unbuildable.
 */
export class FakeMessageBuilder implements MessageBuilder {
  readonly built: MessageToBuild[] = [];
  private refusal: string | undefined;

  refuse(reason: string | undefined): this {
    this.refusal = reason;
    return this;
  }

  build(input: MessageToBuild): BuildResult {
    this.built.push(input);
    if (this.refusal !== undefined) return { ok: false, reason: this.refusal };
    const c: EmailContent = input.content;
    const messageId = `<${input.emailId}@${input.messageIdDomain}>`;
    const lines = [
      `From: ${c.from}`,
      `To: ${c.to.join(', ')}`,
      ...(c.cc.length ? [`Cc: ${c.cc.join(', ')}`] : []),
      `Subject: ${c.subject}`,
      `Date: ${input.date.toUTCString()}`,
      `Message-ID: ${messageId}`,
      ...Object.entries({ ...c.headers, ...input.extraHeaders }).map(([k, v]) => `${k}: ${v}`),
      '',
      c.html ?? c.text ?? '',
    ];
    const from = /<([^>]+)>\s*$/.exec(c.from)?.[1] ?? c.from;
    return {
      ok: true,
      message: {
        raw: Buffer.from(lines.join('\r\n')),
        envelope: { from, to: [...input.recipients] },
        messageId,
      },
    };
  }
}

/**
 * Answers each send with the next scripted result (the last one repeats; `sent` when none was
 * scripted), advancing `clock` by `latencyMs` to stand for the SMTP round trip. Addresses given
 * to `refuse` are refused one by one as a server does at RCPT TO: a `sent` answer lists those of
 * the envelope in `rejected`; when it holds nothing else, the first refusal fails the message.
 */
export class ScriptedSender implements MessageSender {
  readonly sent: OutgoingEmail[] = [];
  private readonly script: SendResult[] = [];
  private readonly refusals = new Map<string, RejectedRecipient>();

  constructor(
    private readonly clock?: ManualClock,
    private readonly latencyMs = 0,
  ) {}

  answer(...results: SendResult[]): this {
    this.script.push(...results);
    return this;
  }

  refuse(...refusals: RejectedRecipient[]): this {
    for (const r of refusals) this.refusals.set(r.address, r);
    return this;
  }

  async send(message: OutgoingEmail): Promise<SendResult> {
    this.sent.push(message);
    this.clock?.advance(this.latencyMs);
    const next = this.script.length > 1 ? this.script.shift() : this.script[0];
    const result = next ?? { kind: 'sent', code: 250, response: '250 2.0.0 OK queued' };
    const rejected = message.envelope.to.flatMap((a) => this.refusals.get(a) ?? []);
    if (result.kind !== 'sent' || rejected.length === 0) return result;
    if (rejected.length < message.envelope.to.length) return { ...result, rejected };
    const [first] = rejected as [RejectedRecipient];
    return first.permanent
      ? { kind: 'hard_fail', code: first.code ?? 550, detail: first.detail }
      : { kind: 'soft_fail', code: first.code, detail: first.detail };
  }
}

/** A clock that stands still until `advance` moves it (wall and monotonic together). */
export class ManualClock implements Clock {
  constructor(private ms = Date.parse('2026-01-02T03:05:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  monotonicMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** `evt-1`, `evt-2`… */
export class SequentialIds implements IdSource {
  private n = 0;
  newEventId(): string {
    return `evt-${++this.n}`;
  }
}

export class RecordingObserver implements DeliverObserver {
  readonly smtp: { kind: SendResult['kind']; seconds: number }[] = [];
  readonly outcomes: { outcome: DeliverOutcome; emailId: string | null }[] = [];
  onSmtpResult(result: SendResult, seconds: number): void {
    this.smtp.push({ kind: result.kind, seconds });
  }
  readonly sideEffectErrors: string[] = [];
  onOutcome(outcome: DeliverOutcome, email: EmailToDeliver | null): void {
    this.outcomes.push({ outcome, emailId: email?.id ?? null });
  }
  onSideEffectError(what: string): void {
    this.sideEffectErrors.push(what);
  }
  readonly pausedBroadcasts: BroadcastPaused[] = [];
  onBroadcastPaused(paused: BroadcastPaused): void {
    this.pausedBroadcasts.push(paused);
  }
}

export interface MemoryDeliverDeps extends DeliverDeps {
  emails: MemoryDeliveryRecords;
  outcomes: MemoryDeliveryRecords;
  templates: MemoryTemplateVersions;
  mime: FakeMessageBuilder;
  smtp: ScriptedSender;
  clock: ManualClock;
  ids: SequentialIds;
  observer: RecordingObserver;
  recipients: MemoryAudienceState;
  suppressions: MemoryAudienceState;
  broadcasts: MemoryBroadcastReader;
  contacts: MemoryContacts;
  contactProperties: MemoryContactProperties;
  tracking: DeliverDeps['tracking'] & { settings: MemoryTrackingSettings };
}

/** Every deliver-email port in memory, one record store serving as `emails` and `outcomes`. */
export function memoryDeliverDeps(
  opts: { retries?: number; smtpLatencyMs?: number } = {},
): MemoryDeliverDeps {
  const emails = new MemoryDeliveryRecords();
  const clock = new ManualClock();
  const audience = new MemoryAudienceState();
  const contactProperties = new MemoryContactProperties();
  return {
    emails,
    outcomes: emails,
    templates: new MemoryTemplateVersions(),
    mime: new FakeMessageBuilder(),
    smtp: new ScriptedSender(clock, opts.smtpLatencyMs ?? 0),
    clock,
    ids: new SequentialIds(),
    observer: new RecordingObserver(),
    retries: opts.retries ?? 3,
    recipients: audience,
    suppressions: audience,
    unsubscribe: readableUnsubscribeLinks,
    broadcasts: new MemoryBroadcastReader(),
    contacts: new MemoryContacts(contactProperties),
    contactProperties,
    tracking: memoryTracking(clock),
  };
}

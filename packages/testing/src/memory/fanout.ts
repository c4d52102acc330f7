/**
 * In-memory ports of the broadcast fan-out (packages/core/src/broadcasts/fanout.ts), for unit
 * tests: a broadcast's fan-out state with the Redis store's compare-and-set rules, a segment's
 * members in (creation ms, id) order, an emails writer that keeps what it created and enqueued
 * (once per id, as the Redis writer and BullMQ job ids do), and an observer that remembers.
 * `failAt` makes a port throw once at a chosen call, to stand for a crash between two steps.
 */
import type { BroadcastCounts, BroadcastRecord, BroadcastStatus, ContactRecord } from '@petrel/contracts';
import type {
  BroadcastContent,
  BroadcastEmail,
  BroadcastReader,
  BroadcastEmailsWriter,
  BroadcastsPort,
  CasResult,
  FanoutCheckpoint,
  FanoutCursor,
  FanoutStep,
  FanoutObserver,
  FanoutOutcome,
  FanoutProgress,
  ProtectionCounts,
  SegmentMembersPager,
} from '@petrel/core';
import { BROADCAST_MACHINE, guardAllows } from '@petrel/core';

/** Throws `Error('crash: <what>')` at the `n`-th call (1-based) of `what`, once. */
export class CrashPlan {
  private readonly calls = new Map<string, number>();
  private readonly plan = new Map<string, number>();

  at(what: string, n: number): this {
    this.plan.set(what, n);
    return this;
  }

  /** Counts a call of `what`; throws when it is the planned one. */
  hit(what: string): void {
    const n = (this.calls.get(what) ?? 0) + 1;
    this.calls.set(what, n);
    if (this.plan.get(what) === n) {
      this.plan.delete(what);
      throw new Error(`crash: ${what}`);
    }
  }
}

/** A broadcast record with a draft's defaults. */
export function broadcastRecord(overrides: Partial<BroadcastRecord> = {}): BroadcastRecord {
  return {
    id: 'b-1',
    name: null,
    segment_id: 'seg-1',
    from: 'Acme <news@acme.test>',
    subject: 'News',
    reply_to: null,
    html: '<p>Hi {{{contact.first_name|there}}}</p>',
    text: null,
    preview_text: null,
    topic_id: null,
    status: 'scheduled',
    created_at: '2026-01-02T03:04:05.000Z',
    scheduled_at: null,
    sent_at: null,
    counts: { total: 0, enqueued: 0, skipped: 0 },
    ...overrides,
  };
}

/** The content of {@link broadcastRecord} (what BroadcastsPort.create takes). */
export function broadcastContent(overrides: Partial<BroadcastContent> = {}): BroadcastContent {
  const {
    id: _i,
    status: _s,
    created_at: _c,
    scheduled_at: _a,
    sent_at: _t,
    counts: _n,
    ...content
  } = broadcastRecord();
  return { ...content, ...overrides };
}

type FanoutSide = Pick<BroadcastsPort, 'startFanout' | 'checkpoint' | 'finishFanout'>;

/** The fan-out side of BroadcastsPort over one map of records (status CAS as the store does it). */
export class MemoryFanoutBroadcasts implements FanoutSide {
  readonly records = new Map<
    string,
    { record: BroadcastRecord; startedMs?: number; cursor?: FanoutCursor }
  >();

  constructor(readonly crashes = new CrashPlan()) {}

  put(teamId: string, record: BroadcastRecord): this {
    this.records.set(`${teamId}:${record.id}`, { record: structuredClone(record) });
    return this;
  }

  get(teamId: string, id: string): BroadcastRecord | undefined {
    return this.records.get(`${teamId}:${id}`)?.record;
  }

  /** As POST /broadcasts/:id/cancel: scheduled | queued → canceled. */
  cancel(teamId: string, id: string): boolean {
    const e = this.records.get(`${teamId}:${id}`);
    if (!e || !guardAllows(BROADCAST_MACHINE.guards.cancellable, e.record.status)) return false;
    e.record.status = 'canceled';
    return true;
  }

  async startFanout(teamId: string, id: string, nowMs: number) {
    this.crashes.hit('startFanout');
    const e = this.records.get(`${teamId}:${id}`);
    if (!e) return { ok: false as const, reason: 'not_found' as const };
    if (!guardAllows(BROADCAST_MACHINE.guards.startable, e.record.status))
      return { ok: false as const, reason: 'status' as const };
    if (e.record.status === 'scheduled') {
      e.record.status = 'queued';
      e.startedMs = nowMs;
    }
    return {
      ok: true as const,
      record: structuredClone(e.record),
      startedMs: e.startedMs!,
      cursor: e.cursor ? { ...e.cursor } : null,
    };
  }

  async checkpoint(
    teamId: string,
    id: string,
    step: FanoutStep,
    add: BroadcastCounts,
  ): Promise<FanoutCheckpoint> {
    this.crashes.hit('checkpoint');
    const e = this.records.get(`${teamId}:${id}`);
    if (!e || !guardAllows(BROADCAST_MACHINE.guards.fanningOut, e.record.status)) return 'not_queued';
    if ((e.cursor?.contactId ?? '') !== (step.from?.contactId ?? '')) return 'moved';
    e.cursor = { ...step.to };
    const c = e.record.counts;
    e.record.counts = {
      total: c.total + add.total,
      enqueued: c.enqueued + add.enqueued,
      skipped: c.skipped + add.skipped,
    };
    return 'ok';
  }

  async finishFanout(teamId: string, id: string, nowMs: number) {
    this.crashes.hit('finishFanout');
    const e = this.records.get(`${teamId}:${id}`);
    if (!e || !guardAllows(BROADCAST_MACHINE.guards.fanningOut, e.record.status)) return false;
    e.record.status = 'sent' satisfies BroadcastStatus;
    e.record.sent_at = new Date(nowMs).toISOString();
    return true;
  }
}

/** Segment members: contacts scored by creation ms, ordered by (score, id) as a Redis zset. */
export class MemorySegmentMembers implements SegmentMembersPager {
  private readonly members = new Map<string, (ContactRecord & { score: number })[]>();
  private readonly sorted = new Set<string>();
  /** Largest page handed out (bounded memory: never more than the page size). */
  maxPage = 0;

  constructor(readonly crashes = new CrashPlan()) {}

  add(teamId: string, segmentId: string, contact: ContactRecord, score: number): this {
    const key = `${teamId}:${segmentId}`;
    const list = this.members.get(key) ?? [];
    list.push({ ...contact, score });
    this.members.set(key, list);
    this.sorted.delete(key);
    return this;
  }

  remove(teamId: string, segmentId: string, contactId: string): this {
    const key = `${teamId}:${segmentId}`;
    this.members.set(
      key,
      (this.members.get(key) ?? []).filter((c) => c.id !== contactId),
    );
    return this;
  }

  async page(teamId: string, segmentId: string, after: FanoutCursor | null, limit: number) {
    this.crashes.hit('page');
    const key = `${teamId}:${segmentId}`;
    const list = this.members.get(key) ?? [];
    if (!this.sorted.has(key)) {
      list.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      this.sorted.add(key);
    }
    const from = after
      ? list.findIndex((c) => c.score > after.score || (c.score === after.score && c.id > after.contactId))
      : 0;
    const contacts = from === -1 ? [] : list.slice(from, from + limit);
    this.maxPage = Math.max(this.maxPage, contacts.length);
    return { contacts: contacts.map((c) => ({ ...c })) };
  }
}

/** Creates each email id once and enqueues each job id once; remembers both. */
export class MemoryBroadcastEmails implements BroadcastEmailsWriter {
  /** Email id → the email (as created, first time only). */
  readonly created = new Map<string, BroadcastEmail & { broadcastId: string }>();
  /** Job ids, once each. */
  readonly jobs = new Set<string>();
  /** Every createAndEnqueue call's size, in order. */
  readonly calls: number[] = [];

  constructor(readonly crashes = new CrashPlan()) {}

  async createAndEnqueue(_teamId: string, broadcast: BroadcastRecord, emails: readonly BroadcastEmail[]) {
    this.crashes.hit('create');
    let n = 0;
    for (const e of emails) {
      if (this.created.has(e.emailId)) continue;
      this.created.set(e.emailId, { ...e, broadcastId: broadcast.id });
      n++;
    }
    // the records are written, the jobs not yet: a crash here is the outbox case of the fan-out
    this.crashes.hit('enqueue');
    for (const e of emails) this.jobs.add(e.emailId);
    this.calls.push(emails.length);
    return n;
  }
}

export class RecordingFanoutObserver implements FanoutObserver {
  readonly starts: boolean[] = [];
  readonly progressLines: FanoutProgress[] = [];
  readonly ends: { outcome: FanoutOutcome; progress: FanoutProgress }[] = [];
  started(_job: unknown, resumed: boolean): void {
    this.starts.push(resumed);
  }
  progress(p: FanoutProgress): void {
    this.progressLines.push(p);
  }
  ended(outcome: FanoutOutcome, progress: FanoutProgress): void {
    this.ends.push({ outcome, progress });
  }
}

/** BroadcastReader over a map: put a broadcast's status and content, or remove it. */
export class MemoryBroadcastReader implements BroadcastReader {
  private readonly broadcasts = new Map<string, { status: BroadcastStatus; content: BroadcastContent }>();
  /** forSend calls, by broadcast id. */
  readonly reads: string[] = [];

  put(teamId: string, id: string, status: BroadcastStatus, content: Partial<BroadcastContent> = {}): this {
    this.broadcasts.set(`${teamId}:${id}`, { status, content: broadcastContent(content) });
    return this;
  }

  remove(teamId: string, id: string): this {
    this.broadcasts.delete(`${teamId}:${id}`);
    return this;
  }

  async forSend(teamId: string, id: string) {
    this.reads.push(id);
    const b = this.broadcasts.get(`${teamId}:${id}`);
    return b ? structuredClone(b) : null;
  }

  /** The protection counters by broadcast (the Redis store's come with the events). */
  readonly counts = new Map<string, ProtectionCounts>();
  /** Reasons of the pauses that went through, by broadcast id. */
  readonly pauses: { id: string; reason: string }[] = [];

  async protectionCounts(teamId: string, id: string): Promise<ProtectionCounts> {
    return { sent: 0, hardBounced: 0, complained: 0, ...this.counts.get(`${teamId}:${id}`) };
  }

  async pause(teamId: string, id: string, reason: string): Promise<CasResult> {
    const b = this.broadcasts.get(`${teamId}:${id}`);
    if (!b) return { ok: false, reason: 'not_found' };
    if (!guardAllows(BROADCAST_MACHINE.guards.pausable, b.status)) {
      return { ok: false, reason: 'status', status: b.status };
    }
    b.status = 'paused';
    this.pauses.push({ id, reason });
    const record: BroadcastRecord = {
      id,
      ...structuredClone(b.content),
      status: b.status,
      created_at: '',
      scheduled_at: null,
      sent_at: null,
      paused_reason: reason,
      counts: { total: 0, enqueued: 0, skipped: 0 },
    };
    return { ok: true, record };
  }
}

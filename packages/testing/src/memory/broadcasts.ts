/**
 * In-memory ports of the broadcast use-cases (packages/core/src/broadcasts/use-cases.ts), for
 * unit tests: the whole BroadcastsPort with the Redis store's compare-and-set rules, a segments
 * reader, and a FanoutScheduler that keeps its jobs (one per broadcast, as the fixed BullMQ job
 * id does) and can be told that a job is running (unschedule then leaves it, as BullMQ does).
 */
import type { BroadcastCounts, BroadcastRecord, BroadcastStatus, SegmentRecord } from '@petrel/contracts';
import {
  BROADCAST_MACHINE,
  guardAllows,
  newId,
  type BroadcastContent,
  type BroadcastsPort,
  type CasResult,
  type FanoutCheckpoint,
  type FanoutStep,
  type FanoutScheduler,
  type Page,
  type PageRequest,
  type SegmentsReader,
} from '@petrel/core';
import { pageNewestFirst } from './page.js';
import { MemoryFanoutBroadcasts } from './fanout.js';

type Entry = MemoryFanoutBroadcasts['records'] extends Map<string, infer E> ? E : never;

export class MemoryBroadcasts implements BroadcastsPort {
  /** The fan-out side (memory/fanout.ts), whose records are this port's. */
  readonly fanoutSide = new MemoryFanoutBroadcasts();
  /** Entries by `team:id`, in creation order. */
  readonly entries = this.fanoutSide.records;
  /** Every transition by method name, in order. */
  readonly writes: string[] = [];

  constructor(readonly clock: { now(): number } = Date) {}

  private entry(teamId: string, id: string): Entry | undefined {
    return this.entries.get(`${teamId}:${id.toLowerCase()}`);
  }

  /** Changes `id` if its status is one the guard (core's broadcast table) accepts. */
  private cas(
    teamId: string,
    id: string,
    guard: readonly BroadcastStatus[],
    change: (e: Entry) => void,
    method: string,
  ): CasResult {
    const e = this.entry(teamId, id);
    if (!e) return { ok: false, reason: 'not_found' };
    if (!guardAllows(guard, e.record.status)) return { ok: false, reason: 'status', status: e.record.status };
    change(e);
    this.writes.push(method);
    return { ok: true, record: structuredClone(e.record) };
  }

  async create(teamId: string, content: BroadcastContent): Promise<BroadcastRecord> {
    const nowMs = this.clock.now();
    const record: BroadcastRecord = {
      id: newId(nowMs),
      ...structuredClone(content),
      status: 'draft',
      created_at: new Date(nowMs).toISOString(),
      scheduled_at: null,
      sent_at: null,
      counts: { total: 0, enqueued: 0, skipped: 0 },
    };
    this.entries.set(`${teamId}:${record.id}`, { record });
    this.writes.push('create');
    return structuredClone(record);
  }

  async get(teamId: string, id: string): Promise<BroadcastRecord | null> {
    const e = this.entry(teamId, id);
    return e ? structuredClone(e.record) : null;
  }

  async list(teamId: string, page: PageRequest): Promise<Page<BroadcastRecord> | null> {
    const mine = [...this.entries.entries()]
      .filter(([key]) => key.startsWith(`${teamId}:`))
      .map(([, e]) => structuredClone(e.record))
      .reverse();
    return pageNewestFirst(mine, page);
  }

  /** Sets a status directly, as a test's given. */
  setStatus(teamId: string, id: string, status: BroadcastStatus): void {
    this.entry(teamId, id)!.record.status = status;
  }

  async update(teamId: string, id: string, patch: Partial<BroadcastContent>): Promise<CasResult> {
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    return this.cas(
      teamId,
      id,
      BROADCAST_MACHINE.guards.editable,
      (e) => Object.assign(e.record, structuredClone(defined)),
      'update',
    );
  }

  async schedule(teamId: string, id: string, dueMs: number): Promise<CasResult> {
    return this.cas(
      teamId,
      id,
      BROADCAST_MACHINE.guards.schedulable,
      (e) => {
        e.record.status = 'scheduled';
        e.record.scheduled_at = new Date(dueMs).toISOString();
      },
      'schedule',
    );
  }

  async cancel(teamId: string, id: string): Promise<CasResult> {
    return this.cas(
      teamId,
      id,
      BROADCAST_MACHINE.guards.cancellable,
      (e) => (e.record.status = 'canceled'),
      'cancel',
    );
  }

  async remove(teamId: string, id: string): Promise<CasResult> {
    return this.cas(
      teamId,
      id,
      BROADCAST_MACHINE.guards.deletable,
      (e) => this.entries.delete(`${teamId}:${e.record.id}`),
      'remove',
    );
  }

  async resume(teamId: string, id: string): Promise<CasResult> {
    return this.cas(
      teamId,
      id,
      BROADCAST_MACHINE.guards.resumable,
      (e) => (e.record.status = 'queued'),
      'resume',
    );
  }

  /** The protection rule's pause (core broadcasts/protection.ts), on the Redis store's guard. */
  async pause(teamId: string, id: string, reason: string): Promise<CasResult> {
    return this.cas(
      teamId,
      id,
      BROADCAST_MACHINE.guards.pausable,
      (e) => {
        e.record.status = 'paused';
        e.record.paused_reason = reason;
      },
      'pause',
    );
  }

  // the fan-out side: the same compare-and-set rules as memory/fanout.ts, on the same records
  startFanout(teamId: string, id: string, nowMs: number) {
    return this.fanoutSide.startFanout(teamId, id.toLowerCase(), nowMs);
  }

  checkpoint(teamId: string, id: string, step: FanoutStep, add: BroadcastCounts): Promise<FanoutCheckpoint> {
    return this.fanoutSide.checkpoint(teamId, id.toLowerCase(), step, add);
  }

  finishFanout(teamId: string, id: string, nowMs: number): Promise<boolean> {
    return this.fanoutSide.finishFanout(teamId, id.toLowerCase(), nowMs);
  }
}

/** Segments by team: `add` them; ids match in any case, as the store's. */
export class MemorySegments implements SegmentsReader {
  private readonly segments = new Map<string, SegmentRecord>();

  add(teamId: string, segment: SegmentRecord): this {
    this.segments.set(`${teamId}:${segment.id.toLowerCase()}`, segment);
    return this;
  }

  async get(teamId: string, id: string): Promise<SegmentRecord | null> {
    return this.segments.get(`${teamId}:${id.toLowerCase()}`) ?? null;
  }
}

/** Fan-out jobs by `team:broadcast` → due ms; `running` ones are kept by unschedule. */
export class MemoryFanoutScheduler implements FanoutScheduler {
  readonly jobs = new Map<string, number>();
  readonly running = new Set<string>();
  /** Every call, in order: `schedule team:id` / `unschedule team:id`. */
  readonly calls: string[] = [];
  /** When set, schedule throws this (a queue outage). */
  failSchedule: Error | undefined;

  async schedule(teamId: string, broadcastId: string, dueMs: number): Promise<void> {
    const key = `${teamId}:${broadcastId}`;
    this.calls.push(`schedule ${key}`);
    if (this.failSchedule) throw this.failSchedule;
    if (!this.jobs.has(key)) this.jobs.set(key, dueMs);
  }

  async unschedule(teamId: string, broadcastId: string): Promise<void> {
    const key = `${teamId}:${broadcastId}`;
    this.calls.push(`unschedule ${key}`);
    if (!this.running.has(key)) this.jobs.delete(key);
  }
}

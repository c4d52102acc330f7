/**
 * In-memory implementations of the outbox relay ports (packages/core/src/outbox/ports.ts): teams
 * with their outboxes (entries oldest first, removed by lane, email and due time as the Redis
 * store removes its members), send queues where a job id is taken once (BullMQ's job-id rule),
 * and an observer that remembers what it was told. Each part can be told to fail.
 */
import type {
  OutboxEntry,
  OutboxJob,
  OutboxPort,
  OutboxRelayObserver,
  OutboxRelayPorts,
  SendJobEnqueuer,
  TeamDirectory,
} from '@petrel/core';
import { isGroupSpec, sendGroupJobId, type SendJobSpec, type SendLane } from '@petrel/contracts';
import { ManualClock } from './deliver-ports.js';

const sameJob = (a: OutboxJob, b: OutboxJob) =>
  a.lane === b.lane &&
  a.emailId === b.emailId &&
  a.dueMs === b.dueMs &&
  a.emailIds?.join() === b.emailIds?.join();

export class MemoryOutbox implements TeamDirectory, OutboxPort {
  private readonly outboxes = new Map<string, OutboxEntry[]>();
  /** Teams whose outbox read throws, to exercise a failing team. */
  readonly failing = new Set<string>();

  /** Add a team (with an empty outbox unless entries follow). */
  addTeam(teamId: string): this {
    if (!this.outboxes.has(teamId)) this.outboxes.set(teamId, []);
    return this;
  }

  /** Put an email in `teamId`'s outbox (as acceptance's first step does). */
  add(teamId: string, entry: Partial<OutboxEntry> & { emailId: string; acceptedMs: number }): this {
    const list = this.addTeam(teamId).outboxes.get(teamId)!;
    list.push({ lane: 'send', dueMs: 0, ...entry });
    list.sort((a, b) => a.acceptedMs - b.acceptedMs);
    return this;
  }

  /** The email ids in `teamId`'s outbox, oldest first. */
  ids(teamId: string): string[] {
    return (this.outboxes.get(teamId) ?? []).map((e) => e.emailId);
  }

  async teamIds(): Promise<string[]> {
    return [...this.outboxes.keys()];
  }

  async pending(teamId: string, acceptedBeforeMs: number, limit: number): Promise<OutboxEntry[]> {
    if (this.failing.has(teamId)) throw new Error(`outbox of ${teamId} unavailable`);
    return (this.outboxes.get(teamId) ?? []).filter((e) => e.acceptedMs < acceptedBeforeMs).slice(0, limit);
  }

  async remove(teamId: string, jobs: OutboxJob[]): Promise<void> {
    const list = this.outboxes.get(teamId);
    if (!list) return;
    this.outboxes.set(
      teamId,
      list.filter((e) => !jobs.some((j) => sameJob(e, j))),
    );
  }
}

export type MemoryEnqueuedJob = { lane: SendLane } & SendJobSpec;

/**
 * Send queues keyed by job id (an email's own job: the email id; a group's: `sendGroupJobId` of
 * its first email): enqueueing an id that has a job keeps the first job.
 */
export class MemorySendQueues implements SendJobEnqueuer {
  readonly jobs = new Map<string, MemoryEnqueuedJob>();
  /** Calls to enqueue, each with its job count (a repeated enqueue still counts). */
  readonly calls: number[] = [];
  /** When set, enqueue throws (a queue shard that is down). */
  down = false;

  async enqueue(lane: SendLane, jobs: SendJobSpec[]): Promise<void> {
    if (this.down) throw new Error('queue unavailable');
    this.calls.push(jobs.length);
    for (const j of jobs) {
      const id = isGroupSpec(j) ? sendGroupJobId(j.emailIds[0]!) : j.emailId;
      if (!this.jobs.has(id)) this.jobs.set(id, { lane, ...j });
    }
  }
}

/** Remembers every relayed count and failure it was told about. */
export class RecordingOutboxObserver implements OutboxRelayObserver {
  readonly relayedByTeam = new Map<string, number>();
  readonly failures: { teamId: string; err: unknown }[] = [];

  relayed(teamId: string, count: number): void {
    this.relayedByTeam.set(teamId, (this.relayedByTeam.get(teamId) ?? 0) + count);
  }

  failed(teamId: string, err: unknown): void {
    this.failures.push({ teamId, err });
  }
}

/** A full set of in-memory relay ports, with handles on each part; the clock reads `nowMs`. */
export function memoryOutboxRelay(nowMs?: number): {
  outbox: MemoryOutbox;
  queues: MemorySendQueues;
  observer: RecordingOutboxObserver;
  clock: ManualClock;
  ports: OutboxRelayPorts;
} {
  const outbox = new MemoryOutbox();
  const queues = new MemorySendQueues();
  const observer = new RecordingOutboxObserver();
  const clock = new ManualClock(nowMs);
  return { outbox, queues, observer, clock, ports: { teams: outbox, outbox, queues, observer, clock } };
}

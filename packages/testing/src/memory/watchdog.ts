/**
 * In-memory implementations of the watchdog ports (packages/core/src/watchdog/ports.ts): email
 * records with each team's unfinished index per lane under the Redis scripts' rules (an email
 * leaves it at `sent` or later), send jobs by state, queued imports, and an observer that
 * remembers what it was told.
 */
import { sendGroupJobId, type EmailEvent, type EmailStatus, type SendLane } from '@petrel/contracts';
import type {
  JobState,
  QueuedImports,
  SendJobs,
  UnfinishedEmails,
  UnfinishedEntry,
  WatchdogAction,
  WatchdogObserver,
  WatchdogPorts,
  WatchedEmail,
} from '@petrel/core';
import { canMove, EMAIL_MACHINE, guardAllows } from '@petrel/core';
import { emailToDeliver, ManualClock, SequentialIds } from './deliver-ports.js';

export class MemoryUnfinishedEmails implements UnfinishedEmails {
  readonly records = new Map<string, WatchedEmail>();
  readonly timelines = new Map<string, EmailEvent[]>();
  /** `team/lane` → email id → due ms. */
  readonly index = new Map<string, Map<string, number>>();

  /** Add an email (and its index entry, as acceptance does). */
  add(over: Partial<WatchedEmail> & { id: string; teamId?: string }, indexedMs?: number): WatchedEmail {
    const email: WatchedEmail = {
      lane: 'send',
      scheduledAt: null,
      requeuedMs: null,
      ...emailToDeliver(over),
      ...over,
    };
    this.records.set(email.id, email);
    if (guardAllows(EMAIL_MACHINE.guards.unfinished, email.status))
      this.lane(email.teamId, email.lane).set(email.id, indexedMs ?? email.createdMs);
    return email;
  }

  indexed(teamId: string, lane: SendLane): string[] {
    return [...this.lane(teamId, lane).keys()];
  }

  teams(): string[] {
    return [...new Set([...this.records.values()].map((e) => e.teamId))];
  }

  private lane(teamId: string, lane: SendLane): Map<string, number> {
    const k = `${teamId}/${lane}`;
    let m = this.index.get(k);
    if (!m) this.index.set(k, (m = new Map()));
    return m;
  }

  async oldest(teamId: string, lane: SendLane): Promise<number | null> {
    const scores = [...this.lane(teamId, lane).values()];
    return scores.length ? Math.min(...scores) : null;
  }

  async overdue(teamId: string, lane: SendLane, cutoffMs: number, limit: number): Promise<UnfinishedEntry[]> {
    return [...this.lane(teamId, lane)]
      .filter(([, due]) => due < cutoffMs)
      .sort((a, b) => a[1] - b[1])
      .slice(0, limit)
      .map(([emailId, dueMs]) => ({ emailId, dueMs }));
  }

  async get(_teamId: string, emailId: string): Promise<WatchedEmail | null> {
    const e = this.records.get(emailId);
    return e ? { ...e } : null;
  }

  async forget(teamId: string, lane: SendLane, emailId: string): Promise<void> {
    this.lane(teamId, lane).delete(emailId);
  }

  async reindex(teamId: string, lane: SendLane, emailId: string, dueMs: number): Promise<void> {
    if (this.lane(teamId, lane).has(emailId)) this.lane(teamId, lane).set(emailId, dueMs);
  }

  async markRequeued(_teamId: string, emailId: string, atMs: number): Promise<boolean> {
    const e = this.records.get(emailId);
    if (!e || e.requeuedMs !== null) return false;
    e.requeuedMs = atMs;
    return true;
  }

  async unmarkRequeued(_teamId: string, emailId: string): Promise<void> {
    const e = this.records.get(emailId);
    if (e) e.requeuedMs = null;
  }

  async recordEvent(
    teamId: string,
    emailId: string,
    status: EmailStatus,
    event: EmailEvent,
  ): Promise<'moved' | 'kept' | 'missing'> {
    const e = this.records.get(emailId);
    if (!e) return 'missing';
    this.timelines.set(emailId, [...(this.timelines.get(emailId) ?? []), event]);
    const moved = canMove(EMAIL_MACHINE, e.status, status);
    if (moved) e.status = status;
    if (!guardAllows(EMAIL_MACHINE.guards.unfinished, e.status))
      for (const lane of ['send', 'broadcast'] as const) this.lane(teamId, lane).delete(emailId);
    return moved ? 'moved' : 'kept';
  }
}

/** Send jobs by email id: what the test sets, what the watchdog enqueued and removed. */
export class MemoryWatchdogJobs implements SendJobs {
  readonly states = new Map<string, JobState>();
  readonly enqueued: { lane: SendLane; emailId: string; delayMs: number }[] = [];
  readonly removed: string[] = [];
  failEnqueue = false;

  /** Keyed by job id: the email id, or `sendGroupJobId(group)` for a group's job. */
  async state(_lane: SendLane, emailId: string, group?: string): Promise<JobState> {
    return this.states.get(group === undefined ? emailId : sendGroupJobId(group)) ?? { state: 'missing' };
  }

  async enqueue(lane: SendLane, jobs: readonly { teamId: string; emailId: string; delayMs?: number }[]) {
    if (this.failEnqueue) throw new Error('queue unavailable');
    for (const j of jobs) {
      if (this.states.has(j.emailId)) continue; // job id = email id: an existing job is kept
      this.states.set(j.emailId, { state: j.delayMs ? 'delayed' : 'waiting' });
      this.enqueued.push({ lane, emailId: j.emailId, delayMs: j.delayMs ?? 0 });
    }
  }

  async remove(_lane: SendLane, emailId: string): Promise<boolean> {
    const s = this.states.get(emailId)?.state;
    if (s !== 'waiting' && s !== 'delayed') return false;
    this.states.delete(emailId);
    this.removed.push(emailId);
    return true;
  }
}

export class MemoryQueuedImports implements QueuedImports {
  /** Import id → team, creation ms, whether its job exists. */
  readonly imports = new Map<string, { teamId: string; createdMs: number; job: boolean }>();
  readonly enqueued: string[] = [];

  async queuedBefore(teamId: string, cutoffMs: number): Promise<string[]> {
    return [...this.imports]
      .filter(([, i]) => i.teamId === teamId && i.createdMs < cutoffMs)
      .map(([id]) => id);
  }
  async hasJob(importId: string): Promise<boolean> {
    return this.imports.get(importId)?.job ?? false;
  }
  async enqueue(_teamId: string, importId: string): Promise<void> {
    const i = this.imports.get(importId);
    if (i && !i.job) {
      i.job = true;
      this.enqueued.push(importId);
    }
  }
}

export class RecordingWatchdogObserver implements WatchdogObserver {
  readonly ages: [SendLane, number][] = [];
  readonly actions: { action: WatchdogAction; teamId: string; id: string; reason: string }[] = [];
  oldestAge(lane: SendLane, seconds: number): void {
    this.ages.push([lane, seconds]);
  }
  acted(action: WatchdogAction, detail: { teamId: string; id: string; reason: string }): void {
    this.actions.push({ action, ...detail });
  }
}

export interface MemoryWatchdog {
  ports: WatchdogPorts;
  emails: MemoryUnfinishedEmails;
  jobs: MemoryWatchdogJobs;
  imports: MemoryQueuedImports;
  observer: RecordingWatchdogObserver;
  clock: ManualClock;
}

export function memoryWatchdog(nowMs = Date.parse('2026-01-02T12:00:00.000Z')): MemoryWatchdog {
  const emails = new MemoryUnfinishedEmails();
  const jobs = new MemoryWatchdogJobs();
  const imports = new MemoryQueuedImports();
  const observer = new RecordingWatchdogObserver();
  const clock = new ManualClock(nowMs);
  const ports: WatchdogPorts = {
    teams: {
      teamIds: async () => [
        ...new Set([...emails.teams(), ...[...imports.imports.values()].map((i) => i.teamId)]),
      ],
    },
    unfinished: emails,
    jobs,
    imports,
    observer,
    clock,
    ids: new SequentialIds(),
  };
  return { ports, emails, jobs, imports, observer, clock };
}

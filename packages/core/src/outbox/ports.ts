/**
 * The ports of the outbox relay. Acceptance writes an email's record and its outbox entry in one
 * step (the team's slot), then enqueues the send job (the queue's slot), then removes the entry;
 * the relay finishes what a crash interrupted between the first step and the last. In production
 * the Redis stores and the send queues satisfy these ports (wired by apps/scheduler);
 * packages/testing has in-memory versions.
 */
import type { SendJobSpec, SendLane } from '@petrel/contracts';
import type { TeamDirectory } from '../housekeeping/ports.js';
import type { Clock } from '../kernel/clock.js';

/** An email (or a group of emails due at once) whose send job may not exist yet. */
export interface OutboxJob {
  lane: SendLane;
  /** The email of an own job; the first email of a group. */
  emailId: string;
  /** When the job is due (ms since the epoch); 0 = at once. */
  dueMs: number;
  /** A group job's emails, in order (`emailId` is the first): acceptance made one job of them. */
  emailIds?: readonly string[];
}

/** An outbox entry as stored: the job and when its email was accepted. */
export interface OutboxEntry extends OutboxJob {
  acceptedMs: number;
}

/** Each team's outbox. */
export interface OutboxPort {
  /** The entries of `teamId` accepted before `acceptedBeforeMs`, oldest first, at most `limit`. */
  pending(teamId: string, acceptedBeforeMs: number, limit: number): Promise<OutboxEntry[]>;
  /** Remove these entries (their jobs exist now); entries already gone are ignored. */
  remove(teamId: string, jobs: OutboxJob[]): Promise<void>;
}

/** The send queues, as far as the relay needs them. */
export interface SendJobEnqueuer {
  /**
   * An email's own job (job id = email id), delayed by `delayMs` when given, or a group's job (job
   * id from its first email); a job whose id exists already is kept as it is.
   */
  enqueue(lane: SendLane, jobs: SendJobSpec[]): Promise<unknown>;
}

/** What a relay round reports, for metrics and logs. */
export interface OutboxRelayObserver {
  /** `count` emails of `teamId` had their jobs enqueued by the relay (called only when count > 0). */
  relayed(teamId: string, count: number): void;
  /** The outbox of `teamId` could not be relayed this round; the next round tries again. */
  failed(teamId: string, err: unknown): void;
}

export interface OutboxRelayPorts {
  teams: TeamDirectory;
  outbox: OutboxPort;
  queues: SendJobEnqueuer;
  observer: OutboxRelayObserver;
  /** The time of the round, read once: the grace and a scheduled email's delay run from it. */
  clock: Pick<Clock, 'now'>;
}

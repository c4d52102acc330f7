/**
 * The ports of the stuck-email watchdog. In production the Redis stores (the teams, each team's
 * index of unfinished emails per lane, the email records), the BullMQ send and import queues and
 * the observability package satisfy them (wired by apps/scheduler); packages/testing has
 * in-memory versions.
 */
import type { SendLane } from '@petrel/contracts';
import type { EmailRecordsPort } from '../emails/ports.js';
import type { Clock } from '../kernel/clock.js';
import type { EmailToDeliver } from '../emails/record.js';
import type { IdSource } from '../kernel/ids.js';
import type { TeamDirectory } from '../housekeeping/ports.js';

/** An unfinished email as the watchdog reads it: the record, its lane and the watchdog's mark. */
export interface WatchedEmail extends EmailToDeliver {
  lane: SendLane;
  /** ISO time a scheduled email is due, or null. */
  scheduledAt: string | null;
  /** When the watchdog re-enqueued its job (ms), or null: it does so once per email. */
  requeuedMs: number | null;
  /** The first email id of the group job it was accepted into, when it was (commitAcceptance). */
  group?: string;
}

/** An entry of a team's unfinished index: the email id and when its job is (was) due, ms. */
export interface UnfinishedEntry {
  emailId: string;
  dueMs: number;
}

/**
 * Each team's index of unfinished emails per lane (entered at acceptance, left at `sent` or a
 * later status by the email scripts), and the writes of the watchdog on the records.
 */
export interface UnfinishedEmails {
  /** The due time of the team's oldest unfinished email of `lane`, or null when there is none. */
  oldest(teamId: string, lane: SendLane): Promise<number | null>;
  /** Entries due before `cutoffMs`, oldest first, at most `limit`. */
  overdue(teamId: string, lane: SendLane, cutoffMs: number, limit: number): Promise<UnfinishedEntry[]>;
  /** The record, or null when it expired or was deleted. */
  get(teamId: string, emailId: string): Promise<WatchedEmail | null>;
  /** Drop an entry whose email is finished or gone (the index lagging its record). */
  forget(teamId: string, lane: SendLane, emailId: string): Promise<void>;
  /** Move an entry to a new due time (a rescheduled email). */
  reindex(teamId: string, lane: SendLane, emailId: string, dueMs: number): Promise<void>;
  /** Mark the email re-enqueued at `atMs`; false when it was already (the once rule, atomic). */
  markRequeued(teamId: string, emailId: string, atMs: number): Promise<boolean>;
  /** Clear the mark of a re-enqueue that did not happen (the queue refused it). */
  unmarkRequeued(teamId: string, emailId: string): Promise<void>;
  /** Append `event` and move the status forward (EmailsStore.recordEvent). */
  recordEvent: EmailRecordsPort['recordEvent'];
}

/** Where a job stands: BullMQ's states, `missing` for a job id the queue does not hold. */
export type JobState =
  | { state: 'waiting' | 'delayed' | 'prioritized' | 'waiting-children' | 'active' | 'completed' }
  | { state: 'failed'; failedReason: string }
  | { state: 'missing' };

/** The send queues (packages/queue SendQueues). */
export interface SendJobs {
  /** The email's own job, or with `group` (its record's), the job of the group it was accepted into. */
  state(lane: SendLane, emailId: string, group?: string): Promise<JobState>;
  /** Queue the job of each email (job id = email id: an existing job is kept as it is). */
  enqueue(
    lane: SendLane,
    jobs: readonly { teamId: string; emailId: string; delayMs?: number }[],
  ): Promise<void>;
  /** Remove a waiting or delayed job; false when there is none or it is running. */
  remove(lane: SendLane, emailId: string): Promise<boolean>;
}

/** Contact imports whose record says `queued` (the API can die between the record and the job). */
export interface QueuedImports {
  /** Ids of the team's imports still `queued`, created before `cutoffMs`. */
  queuedBefore(teamId: string, cutoffMs: number): Promise<string[]>;
  /** Whether the import's job exists (in any state). */
  hasJob(importId: string): Promise<boolean>;
  /** Queue the import's job (job id = import id: an existing job is kept). */
  enqueue(teamId: string, importId: string): Promise<void>;
}

/** What the watchdog did to one email or import. */
export type WatchdogAction = 'requeued' | 'failed' | 'forgotten' | 'import_requeued';

/** Logs and metrics, kept out of the use-case. Must not throw. */
export interface WatchdogObserver {
  /** Age of the oldest unfinished email of `lane` over all teams, in seconds (0: none). */
  oldestAge(lane: SendLane, seconds: number): void;
  /** One thing done, with what it was done to and why. */
  acted(action: WatchdogAction, detail: { teamId: string; id: string; reason: string }): void;
}

export interface WatchdogPorts {
  teams: TeamDirectory;
  unfinished: UnfinishedEmails;
  jobs: SendJobs;
  imports?: QueuedImports;
  observer: WatchdogObserver;
  clock: Clock;
  ids: IdSource;
}

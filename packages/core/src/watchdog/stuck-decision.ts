/**
 * What the watchdog does with one overdue unfinished email: the rule, pure. An email is overdue
 * once its job has been due for WATCHDOG_STUCK_AFTER_S; then
 *
 * | the email / its send job                          | action                                   |
 * |---------------------------------------------------|------------------------------------------|
 * | finished (sent or later) or gone                  | forget: the index lagged                 |
 * | rescheduled, not overdue any more                 | reindex under the new due time           |
 * | job active                                        | wait: a worker holds it (a dead one's    |
 * |                                                   | job is taken over by BullMQ's stall check)|
 * | job failed (stalled too often, an error)          | fail, with the job's reason              |
 * | job missing, never re-enqueued                    | re-enqueue it, once (job id = email id)  |
 * | job missing after the watchdog re-enqueued it     | fail: it vanished twice                  |
 * | job waiting/delayed long past the retry window,   | fail, removing the job first             |
 * | after at least one attempt                        |                                          |
 * | job waiting/delayed otherwise                     | wait: a backlog (a slow broadcast behind |
 * |                                                   | WORKER_SEND_RATE), not a loss            |
 *
 * Re-enqueueing can never send twice: a job whose email is no longer sendable ends without
 * sending (deliverEmail), and the job id is the email id, so a job that exists is kept.
 */
import type { EmailStatus } from '@petrel/contracts';
import { EMAIL_MACHINE } from '../transitions/index.js';
import type { JobState } from './ports.js';

/** Statuses of an email whose SMTP transaction has not happened yet. */
export const UNFINISHED_STATUSES: ReadonlySet<EmailStatus> = new Set(EMAIL_MACHINE.guards.unfinished);

export interface StuckInput {
  status: EmailStatus;
  /** When its job is due: the scheduled time, else acceptance (ms). */
  dueMs: number;
  /** Its score in the index (ms). */
  indexedMs: number;
  requeuedMs: number | null;
  /** SMTP attempts recorded so far. */
  attempts: number;
  job: JobState;
  nowMs: number;
  /** WATCHDOG_STUCK_AFTER_S in ms. */
  stuckAfterMs: number;
  /** The longest a delivery may take by the retry ladder (with jitter and time scale), ms. */
  retryWindowMs: number;
}

export type StuckDecision =
  | { action: 'forget'; reason: string }
  | { action: 'reindex'; dueMs: number }
  | { action: 'wait'; reason: string }
  | { action: 'requeue'; delayMs: number; reason: string }
  | { action: 'fail'; reason: string; removeJob: boolean };

export function decideStuck(x: StuckInput): StuckDecision {
  if (!UNFINISHED_STATUSES.has(x.status)) return { action: 'forget', reason: `already ${x.status}` };
  if (x.dueMs + x.stuckAfterMs > x.nowMs) {
    return x.dueMs !== x.indexedMs
      ? { action: 'reindex', dueMs: x.dueMs }
      : { action: 'wait', reason: 'not overdue' };
  }
  const late = `${Math.round((x.nowMs - x.dueMs) / 1000)} s after it was due`;
  switch (x.job.state) {
    case 'active':
      return { action: 'wait', reason: 'a worker is sending it' };
    case 'failed':
      return {
        action: 'fail',
        reason: `its send job failed (${x.job.failedReason || 'no reason given'}), ${late}`,
        removeJob: false,
      };
    case 'missing':
    case 'completed':
      return x.requeuedMs === null
        ? {
            action: 'requeue',
            delayMs: Math.max(0, x.dueMs - x.nowMs),
            reason: `its send job was lost, ${late}`,
          }
        : {
            action: 'fail',
            reason: `its send job was lost again after the watchdog re-enqueued it, ${late}`,
            removeJob: false,
          };
    default: {
      // only a delivery that has started its retry ladder can outlive it; before the first
      // attempt a waiting job is a backlog however long it is
      const retrying = x.status === 'delivery_delayed' || x.attempts > 0;
      if (retrying && x.nowMs > x.dueMs + x.retryWindowMs + x.stuckAfterMs) {
        return {
          action: 'fail',
          reason: `still ${x.status} with its job ${x.job.state}, ${late}: past its retry window`,
          removeJob: true,
        };
      }
      return { action: 'wait', reason: `its job is ${x.job.state}` };
    }
  }
}

/**
 * The longest a delivery may take by `schedule` (seconds between attempts), every wait stretched
 * by the full jitter, times the time scale: beyond it an unfinished email is not retrying any more.
 */
export function retryWindowMs(schedule: readonly number[], scale: number, jitter: number): number {
  return schedule.reduce((a, b) => a + b, 0) * 1000 * scale * (1 + jitter);
}

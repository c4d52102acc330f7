/**
 * A group job's deliveries: the emails of one accepted request due at once, each through the
 * deliver-email use-case under the lane's process-wide bound; one that must wait (a retry, a
 * deferral) is handed over to a job of its own, so the group ends when each of its emails is
 * terminal or handed over — or, once the job's lock is lost, when the emails started here end.
 */
import type { SendJobSpec, SendQueueJob } from '@petrel/contracts';
import { deliverEmail, type DeliverDeps, type DeliverOutcome, type DeliverStage } from '@petrel/core';
import type { Job } from '@petrel/queue';
import { log, withLogContext } from '@petrel/observability';
import type { DeliveryLimiter } from './delivery-limiter.js';
import { GroupLockLostError, groupLock } from './group-lock.js';
import { startedMark } from './started-mark.js';
import { SoftFailError, toJobResult, waitsWithoutAttempt, type JobResult } from './job-result.js';

/** What a lane that takes group jobs needs besides the delivery ports. */
export interface GroupDelivery {
  /**
   * Runs one delivery when the lane's process-wide bound allows (WORKER_CONCURRENCY): own jobs and
   * the emails of group jobs share it, so a group never multiplies the deliveries run at once; a
   * due retry goes before the queued first attempts (delivery-limiter.ts).
   */
  limit: DeliveryLimiter;
  /** Queue jobs of their own (job id = email id: an existing one is kept). */
  handOver(jobs: SendJobSpec[]): Promise<void>;
  /** Whether the email has a job of its own already (checked when a group job runs again). */
  hasOwnJob(emailId: string): Promise<boolean>;
  /** Whether the worker that got `token` with `job` still holds its lock (group-lock.ts). */
  holdsLock(job: Job<SendQueueJob>, token: string | undefined): Promise<boolean>;
  /**
   * WORKER_LOCK_DURATION_MS: an own job that waited for its slot for half of it reads its lock
   * before it sends (deliver-email.processor.ts).
   */
  lockDurationMs: number;
  /** The retry ladder's wait after `attemptsMade` failed attempts (the `smtp-retry` strategy). */
  retryDelay(attemptsMade: number, err: Error): number;
  /** How many emails a group marks as started per progress write (the lane's concurrency). */
  startAhead: number;
  /**
   * WORKER_SEND_RATE is set: BullMQ's rate limiter counts jobs, so a group hands every email over
   * to its own job, and the limiter paces the emails as before.
   */
  handOverAll: boolean;
}

/** What a group job returns: how many of its emails ended how (handed over: to their own job). */
export type GroupResult = Partial<Record<JobResult | 'handed_over' | 'rejected', number>>;

export async function deliverGroup(
  job: Job<SendQueueJob>,
  token: string | undefined,
  teamId: string,
  emailIds: readonly string[],
  deps: DeliverDeps,
  stages: readonly DeliverStage[],
  group: GroupDelivery,
): Promise<GroupResult> {
  // Run again (BullMQ's stall check took it over from a dead worker, or an attempt failed): an
  // email handed over then has its own job now, and must not run here as well. A delivered or
  // bounced one is skipped by deliverEmail (its status).
  if (group.handOverAll) {
    await group.handOver(emailIds.map((emailId) => ({ teamId, emailId })));
    return { handed_over: emailIds.length };
  }
  const again = job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0;
  const started = startedMark(job, emailIds.length, group.startAhead);
  const lock = groupLock(job, token, group.holdsLock.bind(group));
  // allSettled, not all: the job must not end (and be taken over by another worker once Redis is
  // back) while some of its emails are still being sent here
  const settled = await Promise.allSettled(
    emailIds.map((emailId, index) =>
      withLogContext({ jobId: job.id, teamId, emailId }, () =>
        group.limit(async () => {
          // the lock is read once the email has its slot, so nothing but its own delivery
          // lies between the read and the send (group-lock.ts); the started mark's write, when
          // due, is awaited together with it (one wait, not two)
          const [, held] = await Promise.all([started(index), lock.held()]);
          if (!held) return 'not_started' as const;
          if (again && (await group.hasOwnJob(emailId))) return 'handed_over' as const;
          const end = await deliverOne(teamId, emailId, deps, stages, group);
          if (typeof end === 'string') return end;
          await group.handOver([end]);
          return 'handed_over' as const;
        }),
      ),
    ),
  );
  // after every email started here has ended: the worker that holds the job now runs the rest
  if (lock.lost) {
    const left = settled.filter((end) => end.status === 'fulfilled' && end.value === 'not_started');
    log().warn({ jobId: job.id, notStarted: left.length }, 'group job lost its lock; it sent nothing more');
    throw new GroupLockLostError(job.id, left.length);
  }
  const result: GroupResult = {};
  for (const end of settled) {
    // a failed write (the store or the queue unreachable): the job attempt fails and runs again
    if (end.status === 'rejected') throw end.reason;
    if (end.value !== 'not_started') result[end.value] = (result[end.value] ?? 0) + 1;
  }
  return result;
}

/** One email of a group: how it ended, or the own job it must be handed over to. */
async function deliverOne(
  teamId: string,
  emailId: string,
  deps: DeliverDeps,
  stages: readonly DeliverStage[],
  group: GroupDelivery,
): Promise<JobResult | 'rejected' | SendJobSpec> {
  let outcome: DeliverOutcome;
  try {
    // its first attempt: a group job runs only emails that have made none
    outcome = await deliverEmail({ teamId, emailId, attemptsMade: 0 }, deps, stages);
  } catch (err) {
    // a port failed (an unreachable store): the attempt failed as an own job's would, retried
    // on the ladder by a job of its own
    const error = err instanceof Error ? err : new Error(String(err));
    log().warn({ err: error.message }, 'send attempt failed; handed over to its own job');
    return { teamId, emailId, attemptsBefore: 1, delayMs: group.retryDelay(1, error) };
  }
  const now = Date.now();
  const until = waitsWithoutAttempt(outcome, now);
  // a warm-up deferral or a hold: the own job waits, no attempt counted
  if (until !== null) return { teamId, emailId, delayMs: Math.max(0, until - now) };
  try {
    return toJobResult(outcome);
  } catch (err) {
    if (err instanceof SoftFailError)
      return { teamId, emailId, attemptsBefore: 1, delayMs: group.retryDelay(1, err) };
    // never retried (a permanent bounce, a message that cannot be built): as an own job's failure
    log().warn({ err: (err as Error).message }, 'send job failed');
    return 'rejected';
  }
}

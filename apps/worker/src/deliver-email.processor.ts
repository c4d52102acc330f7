/**
 * The send processor. A job is one email (its own job) or a group: the emails of one accepted
 * request due at once (core's commitAcceptance). Each email runs the deliver-email use-case in its
 * own log context; the outcome becomes the job's fate (job-result.ts) — for a group, each email's
 * own: one that must wait (a retry, a deferral) is handed over to a job of its own, so the group
 * ends when each of its emails is terminal or handed over. Everything in between (content,
 * recipients, MIME, SMTP, what to record) is packages/core's.
 */
import { sendGroupJobSchema, sendJobSchema, type SendJob, type SendQueueJob } from '@petrel/contracts';
import { deliverEmail, DELIVERY_STAGES, type DeliverDeps, type DeliverStage } from '@petrel/core';
import { DelayedError, parseJobData, UnrecoverableError, type Job } from '@petrel/queue';
import { withLogContext } from '@petrel/observability';
import { toJobResult, waitsWithoutAttempt, type JobResult } from './job-result.js';
import { turnOf, type DeliveryLimiter } from './delivery-limiter.js';
import { deliverGroup, type GroupDelivery, type GroupResult } from './group-delivery.js';
import { GroupLockLostError } from './group-lock.js';

export function deliverEmailProcessor(
  deps: DeliverDeps,
  stages: readonly DeliverStage[] = DELIVERY_STAGES,
  group?: GroupDelivery,
): (job: Job<SendQueueJob>, token?: string) => Promise<JobResult | GroupResult> {
  const limit: DeliveryLimiter = group ? group.limit.bind(group) : (fn) => fn();
  return async (job, token) => {
    // a group's payload is told by its `emailIds`, so a malformed one is checked (and named) as such
    if (typeof job.data === 'object' && job.data !== null && 'emailIds' in job.data) {
      const { teamId, emailIds } = parseJobData(sendGroupJobSchema, job);
      if (!group) throw new UnrecoverableError('a group job on a lane that takes none');
      return deliverGroup(job, token, teamId, emailIds, deps, stages, group);
    }
    const data = parseJobData(sendJobSchema, job);
    const { teamId, emailId } = data;
    // attempts made in its group or by this job: a due retry, which goes before the first
    // attempts queued in the lane's bound (delivery-limiter.ts)
    const attemptsMade = job.attemptsMade + attemptsBefore(data);
    return withLogContext({ jobId: job.id, teamId, emailId }, () =>
      limit(async () => {
        // The lane fetches more jobs than it runs deliveries (send-lanes.ts), so an own job can
        // wait here. A lock is set when its job is fetched (processedOn) and lasts
        // WORKER_LOCK_DURATION_MS unless renewed; if Redis was away for that long, BullMQ's stall
        // check gave the job to another worker. A job that waited for half of it reads its lock
        // once it has its slot, as a group's email does (group-lock.ts); a shorter wait cannot
        // have outlived the lock, and costs no read.
        if (group && Date.now() - (job.processedOn ?? 0) >= group.lockDurationMs / 2) {
          if (!(await group.holdsLock(job, token))) throw new GroupLockLostError(job.id, 1);
        }
        const outcome = await deliverEmail({ teamId, emailId, attemptsMade }, deps, stages);
        const until = waitsWithoutAttempt(outcome, Date.now());
        if (until !== null) {
          // a paused broadcast's hold or a warm-up deferral: the job waits, no attempt counted
          await job.moveToDelayed(until, token);
          throw new DelayedError();
        }
        return toJobResult(outcome);
      }, turnOf(attemptsMade)),
    );
  };
}

/** Attempts an email made before its own job existed (in its group). */
export const attemptsBefore = (data: Pick<SendJob, 'attemptsBefore'>): number => data.attemptsBefore ?? 0;

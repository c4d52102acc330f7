/**
 * The send processor: one job = one email. Parses the job, runs the deliver-email use-case in the
 * job's log context, and turns the outcome into the job's fate (job-result.ts). Everything in
 * between (content, recipients, MIME, SMTP, what to record) is packages/core's.
 */
import { sendJobSchema, type SendJob } from '@petrel/contracts';
import { deliverEmail, DELIVERY_STAGES, type DeliverDeps, type DeliverStage } from '@petrel/core';
import { DelayedError, parseJobData, type Job } from '@petrel/queue';
import { withLogContext } from '@petrel/observability';
import { toJobResult, waitsWithoutAttempt, type JobResult } from './job-result.js';

export function deliverEmailProcessor(
  deps: DeliverDeps,
  stages: readonly DeliverStage[] = DELIVERY_STAGES,
): (job: Job<SendJob>, token?: string) => Promise<JobResult> {
  return async (job, token) => {
    const { teamId, emailId } = parseJobData(sendJobSchema, job);
    return withLogContext({ jobId: job.id, teamId, emailId }, async () => {
      const outcome = await deliverEmail({ teamId, emailId, attemptsMade: job.attemptsMade }, deps, stages);
      const until = waitsWithoutAttempt(outcome, Date.now());
      if (until !== null) {
        // a paused broadcast's hold or a warm-up deferral: the job waits, no attempt counted
        await job.moveToDelayed(until, token);
        throw new DelayedError();
      }
      return toJobResult(outcome);
    });
  };
}

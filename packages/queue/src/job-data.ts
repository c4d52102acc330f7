/**
 * The one check of a job's payload at the start of every BullMQ processor. A payload that does
 * not match its schema will not match it on any later attempt either, so the job must fail at
 * once instead of climbing its retry ladder (hours of retries for a send job, days for a
 * webhook delivery): BullMQ fails a job without further attempts when its processor throws
 * `UnrecoverableError` (https://docs.bullmq.io/guide/retrying-failing-jobs#stop-retrying-jobs).
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { formatIssues, type ValidationIssue } from '@petrel/contracts';
import { log } from '@petrel/observability';

/** What a job schema offers (a zod schema): `safeParse` with path-carrying issues. */
export interface JobDataSchema<T> {
  safeParse(
    data: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: readonly ValidationIssue[] } };
}

/**
 * `job.data` checked against `schema`: the parsed payload, or — after one structured log line
 * (job id, queue, the schema's issues) — an `UnrecoverableError` whose message (the job's
 * `failedReason`) names each bad field and its rule.
 */
export function parseJobData<T>(schema: JobDataSchema<T>, job: Pick<Job, 'id' | 'queueName' | 'data'>): T {
  const parsed = schema.safeParse(job.data);
  if (parsed.success) return parsed.data;
  const reason = `malformed job: ${formatIssues(parsed.error.issues)}`;
  log().error(
    { jobId: job.id, queue: job.queueName, issues: parsed.error.issues },
    `${reason}; failed without retrying`,
  );
  throw new UnrecoverableError(reason);
}

/**
 * The contact-import processor: one job = one import. Parses the job, runs core's
 * runContactImport in the job's log context with the Redis stores, and turns the outcome into
 * the job's fate:
 *
 * - completed / failed (the import's own outcome, already recorded) / missing / already done:
 *   the job completes;
 * - paused (this process is shutting down; the import is checkpointed): the job goes back to
 *   the queue at once, without using an attempt, for any worker to go on with;
 * - superseded (another worker took the job over after this one stalled): nothing more to do;
 * - an error (Redis unreachable…): the job fails and BullMQ retries it from the checkpoint; the
 *   last attempt marks the import failed with the error.
 *
 * Progress is logged every CONTACT_IMPORT_POLICY.progressEvery rows with the rate of this run.
 */
import { contactImportJobSchema, type ContactImportJob } from '@petrel/contracts';
import {
  ImportSupersededError,
  newId,
  runContactImport,
  systemClock,
  type ContactImportRuns,
  type ContactsImporter,
  type RunContactImportResult,
} from '@petrel/core';
import { DelayedError, parseJobData, type Job } from '@petrel/queue';
import { log, withLogContext } from '@petrel/observability';

export interface ContactImportProcessorDeps {
  imports: ContactImportRuns & {
    abandon(teamId: string, importId: string, error: string, nowMs: number): Promise<boolean>;
  };
  contacts: ContactsImporter;
  /** True once the process is shutting down: a running import stops at its next checkpoint. */
  stopping: () => boolean;
}

export type ContactImportJobResult = RunContactImportResult | { outcome: 'superseded' };

export function contactImportProcessor(
  deps: ContactImportProcessorDeps,
): (job: Job<ContactImportJob>, token?: string) => Promise<ContactImportJobResult> {
  return async (job, token) => {
    const { teamId, importId } = parseJobData(contactImportJobSchema, job);
    return withLogContext({ jobId: job.id, teamId, importId }, async () => {
      const started = performance.now();
      let result: RunContactImportResult;
      try {
        result = await runContactImport(
          { teamId, importId, runId: `${job.id}:${newId()}` },
          {
            imports: deps.imports,
            contacts: deps.contacts,
            clock: systemClock,
            shouldStop: deps.stopping,
            observer: {
              progress: (p) =>
                log().info(
                  { rows: p.rowsDone, rowsPerSecond: p.rowsPerSecond, counts: p.counts },
                  'contact import progress',
                ),
              resumed: (r) => log().info({ rows: r.rowsDone }, 'contact import resumed from its checkpoint'),
            },
          },
        );
      } catch (err) {
        if (err instanceof ImportSupersededError) {
          log().warn('contact import taken over by another worker; this run stops');
          return { outcome: 'superseded' } as const;
        }
        const attempts = job.opts.attempts ?? 1;
        if (job.attemptsMade + 1 >= attempts) {
          const message = `the import could not go on: ${(err as Error).message}`;
          await deps.imports.abandon(teamId, importId, message, systemClock.now()).catch(() => undefined);
          log().error({ err }, 'contact import failed for good');
        } else
          log().warn(
            { err, attempt: job.attemptsMade + 1 },
            'contact import interrupted; retried from its checkpoint',
          );
        throw err;
      }
      if (result.outcome === 'paused') {
        log().info({ rows: result.rowsDone }, 'contact import paused for shutdown; queued again');
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      if (result.outcome === 'completed' || result.outcome === 'failed') {
        const seconds = (performance.now() - started) / 1000;
        log().info(
          {
            outcome: result.outcome,
            counts: result.counts,
            error: result.error,
            seconds: Math.round(seconds * 10) / 10,
          },
          `contact import ${result.outcome}`,
        );
      }
      return result;
    });
  };
}

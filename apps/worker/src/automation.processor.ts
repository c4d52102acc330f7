/**
 * The automation processor: one job = one event to dispatch or one step of a run. Parses the
 * job and runs core's use-case (dispatchEvent / runStep) in the job's log context; the only
 * queue-specific part is a step that sleeps (a delay, a wait until its timeout): its job is moved
 * back to delayed until then (DelayedError tells BullMQ the processor did it), so the sleeping
 * run is a delayed job in Redis and survives restarts.
 */
import { AUTOMATION_STEP_TYPES, automationJobSchema, type AutomationJob } from '@petrel/contracts';
import { dispatchEvent, runStep, type EnginePorts } from '@petrel/core';
import { DelayedError, parseJobData, type Job } from '@petrel/queue';
import { log, metrics, withLogContext, zeroSeries } from '@petrel/observability';

export function automationProcessor(
  ports: EnginePorts,
): (job: Job<AutomationJob>, token?: string) => Promise<string> {
  // every step type's series from start-up, before the first run
  zeroSeries(metrics.automationStepDuration(), { type: AUTOMATION_STEP_TYPES });
  return async (job, token) => {
    const data = parseJobData(automationJobSchema, job);
    if (data.kind === 'event') {
      return withLogContext({ jobId: job.id, teamId: data.teamId, eventId: data.event.id }, async () => {
        const res = await dispatchEvent(data.event, ports);
        return `started ${res.started}, resumed ${res.resumed}`;
      });
    }
    return withLogContext({ jobId: job.id, teamId: data.teamId, runId: data.runId }, async () => {
      const started = performance.now();
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const outcome = await runStep(data, ports, lastAttempt);
      metrics
        .automationStepDuration()
        .observe({ type: outcome.stepType ?? 'unknown' }, (performance.now() - started) / 1000);
      if (outcome.kind === 'sleep') {
        await job.moveToDelayed(outcome.untilMs, token);
        throw new DelayedError();
      }
      if (outcome.result === 'failed')
        log().warn({ step: data.stepKey }, 'automation step failed; its run failed');
      return outcome.result;
    });
  };
}

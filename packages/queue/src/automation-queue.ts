/**
 * BullMQ adapter of the automation engine: one queue (AUTOMATION_QUEUE, its own hash slot) for
 * both kinds of job — an event to dispatch (job id from the event id) and one step of a run (job
 * id from run, step and visit) — and the worker that runs them. Both ids are fixed, so a
 * hand-over repeated after a crash, or a step scheduled twice, is one job.
 *
 * A `delay` step and a wait's timeout are the step's own job moved back to delayed until its
 * time (the processor does it), so a sleeping run is a delayed job in Redis: it survives any
 * restart. A job whose worker died (kill -9) stalls and is run again, many times if need be
 * (AUTOMATION_MAX_STALLED); the engine makes every step safe to repeat.
 */
import type { Processor, Worker } from 'bullmq';
import {
  AUTOMATION_QUEUE,
  automationEventJobId,
  automationStepJobId,
  type AutomationJob,
} from '@petrel/contracts';
import type { QueueConnection } from './send-queues.js';
import { JobQueue, jobWorker, retriedJobOptions, type JobWorkerOptions } from './job-queue.js';

/** Times a job may lose its worker before BullMQ fails it. */
export const AUTOMATION_MAX_STALLED = 20;

/**
 * Failures (Redis unreachable, a concurrent acceptance under the step's Idempotency-Key) are
 * retried with a growing delay: 12 attempts from 1 s doubling cover more than the idempotency
 * lock of a killed worker's acceptance. The processor fails the run on the last one.
 */
export const AUTOMATION_JOB_ATTEMPTS = 12;

/** An event as the events API hands it over (core's ReceivedEvent). */
type HandedEvent = Extract<AutomationJob, { kind: 'event' }>['event'];

/** Implements core's AutomationTriggers and AutomationStepQueue ports (structurally). */
export class AutomationQueue extends JobQueue<AutomationJob> {
  constructor(connection: QueueConnection, opts: { prefix?: string } = {}) {
    super(AUTOMATION_QUEUE, connection, opts.prefix, retriedJobOptions(AUTOMATION_JOB_ATTEMPTS, 1_000));
  }

  /** The events API's hand-over: resolves once the event's job is in Redis. */
  async eventReceived(event: Readonly<HandedEvent>): Promise<void> {
    await this.queue.add(
      'event',
      { v: 1, kind: 'event', teamId: event.teamId, event: { ...event, payload: { ...event.payload } } },
      { jobId: automationEventJobId(event.id) },
    );
  }

  async enqueueSteps(
    teamId: string,
    runId: string,
    steps: readonly { key: string; index: number }[],
  ): Promise<void> {
    if (steps.length === 0) return;
    await this.queue.addBulk(
      steps.map((s) => ({
        name: 'step',
        data: { v: 1, kind: 'step', teamId, runId, stepKey: s.key, index: s.index, visit: 1 } as const,
        opts: { jobId: automationStepJobId(runId, s.index, 1) },
      })),
    );
  }

  /** Drops a sleeping step's job; a running (locked) or missing one is left alone. */
  async removeStep(runId: string, index: number): Promise<void> {
    await this.queue.remove(automationStepJobId(runId, index, 1)).catch(() => undefined);
  }
}

export function createAutomationWorker(
  processor: Processor<AutomationJob>,
  opts: JobWorkerOptions,
): Worker<AutomationJob> {
  return jobWorker(AUTOMATION_QUEUE, processor, opts, AUTOMATION_MAX_STALLED);
}

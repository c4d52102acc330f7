/**
 * The automation engine in a worker process: the BullMQ worker of the automation queue running
 * the automation processor over the Redis stores, the automation queue (next steps), and the
 * accept path every producer shares (the runtime's: records, outbox, send jobs), so a
 * send_email step's email enters exactly as a POST /emails one does.
 */
import type { EnginePorts } from '@petrel/core';
import { createAutomationWorker } from '@petrel/queue';
import { log, metrics } from '@petrel/observability';
import type { Runtime } from '@petrel/runtime';
import { automationProcessor } from './automation.processor.js';
import type { WorkerConfig } from './config.js';
import { jobWorkerOptions, logJobWorker } from './job-workers.js';

/**
 * How long a step's acceptance holds its Idempotency-Key. A step's email has no remote
 * attachments, so an acceptance takes milliseconds; a worker killed mid-acceptance delays the
 * step's retry by at most this. Short is safe: a retry that takes over a live claim recomputes the
 * same email id (the claim's start is kept), and recording or queuing an email twice is one email.
 */
const AUTOMATION_ACCEPT_LOCK_MS = 5_000;

export async function startAutomationEngine(
  config: WorkerConfig,
  rt: Runtime,
): Promise<{ close(): Promise<void> }> {
  const { stores: s, queues } = rt;
  await queues.automation.ready();
  const ports: EnginePorts = {
    automations: s.automations,
    runs: s.automationRuns,
    queue: queues.automation,
    contacts: s.contacts,
    properties: s.contactProperties,
    accept: await rt.acceptance({ lockMs: AUTOMATION_ACCEPT_LOCK_MS }),
    clock: Date,
    observer: {
      runStarted: () => metrics.automationRunsStarted().inc(),
      runCompleted: () => metrics.automationRunsCompleted().inc(),
      runFailed: () => metrics.automationRunsFailed().inc(),
    },
  };
  // the counters exist from the start (at 0), so rates and alerts see them before the first run
  metrics.automationRunsStarted();
  metrics.automationRunsCompleted();
  metrics.automationRunsFailed();
  const worker = logJobWorker(
    createAutomationWorker(
      automationProcessor(ports),
      jobWorkerOptions(config, rt, config.AUTOMATION_CONCURRENCY),
    ),
    'automation',
  );
  worker.on('stalled', (jobId) =>
    log().warn({ jobId }, 'automation job stalled (its worker stopped); it runs again, safely'),
  );
  return { close: () => worker.close() };
}

/**
 * The worker process's parts on a runtime: the send lanes (send-lanes.ts) over the lanes' SMTP
 * senders (senders.ts) and the deliver-email ports (delivery-ports.ts), the contact imports, the
 * automation engine and the inbox agent. Used by `main.ts` (a worker alone) and by the all-in-one
 * launcher, which hands it the process's runtime.
 */
import type { DeliverStage } from '@petrel/core';
import type { SendQueueJob } from '@petrel/contracts';
import type { Worker } from '@petrel/queue';
import { partStart, type Component, type Runtime } from '@petrel/runtime';
import { startAutomationEngine } from './automation-engine.js';
import type { WorkerConfig } from './config.js';
import { startContactImports } from './contact-imports.js';
import { deliveryPorts } from './delivery-ports.js';
import { startInboxAgent } from './inbox-agent.js';
import { retrySchedule } from './retry-backoff.js';
import { startSendLanes } from './send-lanes.js';
import { createLaneSenders } from './senders.js';

export interface WorkerHandle extends Component {
  workers: Worker<SendQueueJob>[];
}

export interface WorkerExtensions {
  /** Replaces the delivery stages (default: DELIVERY_STAGES), e.g. to add one under test. */
  stages?: readonly DeliverStage[];
}

/** The worker's parts on the all-in-one's runtime (`shared`), or on one of its own (partStart). */
export const startWorker = partStart(
  'worker',
  'the worker',
  async (config: WorkerConfig, rt: Runtime, ext: WorkerExtensions): Promise<Omit<WorkerHandle, 'ready'>> => {
    if (config.DELIVERY_MODE === 'relay' && !config.SMTP_URL)
      throw new Error('SMTP_URL is required to start the worker (DELIVERY_MODE=relay)');
    // Relay: one SMTP pool per lane; direct: one MX sender shared by the lanes (senders.ts).
    const senders = createLaneSenders(config, rt.stores);
    const schedule = retrySchedule(config.RETRY_SCHEDULE_S);
    const lanes = startSendLanes(config, {
      ports: await deliveryPorts(config, rt, schedule.length),
      senders,
      schedule,
      connection: rt.connection('bull'),
      prefix: rt.keys.bullPrefix(),
      stages: ext.stages,
      // the reading the broadcast fan-out paces itself by: the broadcast lane yields by it too
      pressure: () => rt.queues.send.busy('send'),
      queues: rt.queues.send,
    });
    const imports = startContactImports(config, rt);
    // Automation runs: their own queue, AUTOMATION_CONCURRENCY jobs at a time (automation-engine.ts).
    const automations = await startAutomationEngine(config, rt);
    // Inbox agent runs: their own queue, only with a model endpoint (inbox-agent.ts).
    const agent = await startInboxAgent(config, rt);

    return {
      workers: lanes.workers,
      async close() {
        // Stop taking jobs and let in-flight sends finish (a running import stops at its next
        // checkpoint), then close the transport and Redis.
        await Promise.all([lanes.close(), imports.close(), automations.close(), agent?.close()]);
        await Promise.all(senders.all.map((s) => s.close()));
      },
    };
  },
);

/**
 * Broadcast fan-out wiring: a BullMQ Worker on BROADCAST_FANOUT_QUEUE whose processor parses the
 * job and runs core's `runBroadcastFanout` in the job's log context, with the Redis stores and
 * the send queues as its ports and pino lines as its observer. The rules live in
 * packages/core/src/broadcasts/fanout.ts.
 *
 * Several schedulers may run: BullMQ gives each job to one. A scheduler killed mid fan-out stops
 * renewing its job's lock; after FANOUT_LOCK_DURATION_MS the job is found stalled (checked every
 * FANOUT_STALLED_INTERVAL_MS) and another scheduler — or this one restarted — resumes it at its
 * last checkpoint. An error (Redis unreachable) fails the attempt; BullMQ retries it, again from
 * the checkpoint.
 */
import { broadcastFanoutJobSchema, type BroadcastFanoutJob } from '@petrel/contracts';
import {
  runBroadcastFanout,
  type FanoutObserver,
  type FanoutOutcome,
  type FanoutPaceRule,
  type FanoutPacer,
  type FanoutPorts,
} from '@petrel/core';
import {
  DelayedError,
  createBroadcastFanoutWorker,
  parseJobData,
  type Job,
  type QueueConnection,
} from '@petrel/queue';
import { log, metrics, withLogContext, zeroSeries } from '@petrel/observability';
import { setTimeout as sleep } from 'node:timers/promises';

/** Progress lines as pino logs, bound to the job by the log context. */
const fanoutLogObserver: FanoutObserver = {
  started: (_job, resumed) =>
    log().info(
      { resumed },
      resumed ? 'broadcast fan-out resumed from its checkpoint' : 'broadcast fan-out started',
    ),
  progress: (p) =>
    log().info(
      { pages: p.pages, counts: p.counts, contactsPerSecond: p.contactsPerSecond },
      'broadcast fan-out progress',
    ),
  ended: (outcome, p) =>
    log().info(
      { outcome: outcome.kind, pages: p.pages, counts: p.counts, contactsPerSecond: p.contactsPerSecond },
      'broadcast fan-out ended',
    ),
  // a metric, not a line: one decision per page
  paced: (pace) => {
    metrics.fanoutPages().inc({ pace: pace.state });
    metrics.fanoutPaceDelay().set(pace.delayMs);
  },
};

/**
 * The fan-out's pacer (core broadcasts/pacing.ts) over a reading of the transactional lane's
 * waiting + running jobs; undefined (no pacing) without a rule (FANOUT_PACING=false).
 */
export function fanoutPacer(
  rule: FanoutPaceRule | undefined,
  busy: () => Promise<number>,
): FanoutPacer | undefined {
  if (!rule) return undefined;
  zeroSeries(metrics.fanoutPages(), { pace: ['full', 'paced'] });
  metrics.fanoutPaceDelay().set(0);
  return { rule, pressure: busy, sleep: (ms) => sleep(ms) };
}

/** The processor: payload checked at the boundary, then the use-case. */
function broadcastFanoutProcessor(
  ports: Omit<FanoutPorts, 'observer'> & { observer?: FanoutObserver },
): (job: Job<BroadcastFanoutJob>, token?: string) => Promise<FanoutOutcome> {
  return async (job, token) => {
    const { teamId, broadcastId } = parseJobData(broadcastFanoutJobSchema, job);
    return withLogContext({ jobId: job.id, teamId, broadcastId }, async () => {
      let outcome: FanoutOutcome;
      try {
        outcome = await runBroadcastFanout(
          { teamId, broadcastId },
          { ...ports, observer: ports.observer ?? fanoutLogObserver },
        );
      } catch (err) {
        log().warn(
          { err, attempt: job.attemptsMade + 1 },
          'broadcast fan-out interrupted; retried from its checkpoint',
        );
        throw err;
      }
      if (outcome.kind === 'paused') {
        // back to the queue at once, without using an attempt: another scheduler goes on
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      return outcome;
    });
  };
}

export interface FanoutWorkerSettings {
  connection: QueueConnection;
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/** Starts the fan-out worker of this process; `close()` pauses running fan-outs after their page. */
export function startBroadcastFanout(
  ports: Omit<FanoutPorts, 'observer' | 'shouldStop'>,
  settings: FanoutWorkerSettings,
): { close(): Promise<void> } {
  let stopping = false;
  const worker = createBroadcastFanoutWorker(
    broadcastFanoutProcessor({ ...ports, shouldStop: () => stopping }),
    {
      connection: settings.connection,
      prefix: settings.prefix,
      concurrency: settings.concurrency,
      lockDuration: settings.lockDurationMs,
      stalledInterval: settings.stalledIntervalMs,
    },
  );
  worker.on('error', (err) => log().error({ err }, 'broadcast fan-out worker error'));
  worker.on('stalled', (jobId) =>
    log().warn(
      { jobId },
      'broadcast fan-out stalled (its scheduler stopped); it resumes from its checkpoint',
    ),
  );
  worker.on('failed', (job, err) =>
    log().error({ jobId: job?.id, err: err.message }, 'broadcast fan-out attempt failed'),
  );
  return {
    // a running fan-out stops after its current page and goes back to the queue
    close: () => {
      stopping = true;
      return worker.close();
    },
  };
}

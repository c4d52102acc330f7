/**
 * The broadcast lane yields to transactional mail at run time: every
 * WORKER_BROADCAST_YIELD_INTERVAL_MS this process reads the transactional lane's jobs waiting and
 * running (`SendQueues.busy('send')`, one count script per shard: the reading the broadcast
 * fan-out paces itself by), asks core's rule (broadcasts/lane-yield.ts) how many broadcast jobs to
 * run at once, and sets its broadcast workers' concurrency to that. The rule decides; this only
 * reads and applies. A failed reading keeps the last concurrency (Redis is then out of reach for
 * the sends too) and is logged once until a reading succeeds again.
 */
import { broadcastLaneYield, type LaneYieldRule } from '@petrel/core';
import { setLaneConcurrency, type Worker } from '@petrel/queue';
import type { SendQueueJob } from '@petrel/contracts';
import { log, metrics } from '@petrel/observability';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LaneYield {
  /** Stops reading; the workers keep the concurrency they have (they are being closed). */
  stop(): Promise<void>;
}

export function startBroadcastLaneYield(opts: {
  /** undefined (WORKER_BROADCAST_YIELD=false): the lane keeps `fullConcurrency`, nothing is read. */
  rule: LaneYieldRule | undefined;
  /** The broadcast lane's workers of this process. */
  workers: readonly Worker<SendQueueJob>[];
  /** WORKER_BROADCAST_CONCURRENCY. */
  fullConcurrency: number;
  /** The transactional lane's jobs waiting and running. */
  pressure: () => Promise<number>;
  intervalMs: number;
}): LaneYield {
  const gauge = metrics.broadcastLaneConcurrency();
  gauge.set(setLaneConcurrency(opts.workers, opts.fullConcurrency));
  const rule = opts.rule;
  if (!rule) return { stop: async () => undefined };
  const stopped = new AbortController();
  const loop = (async () => {
    let failing = false;
    while (!stopped.signal.aborted) {
      try {
        const decided = broadcastLaneYield(await opts.pressure(), rule, opts.fullConcurrency);
        if (stopped.signal.aborted) break;
        gauge.set(setLaneConcurrency(opts.workers, decided.concurrency));
        if (failing) log().info('broadcast lane yield: the transactional lane is read again');
        failing = false;
      } catch (err) {
        if (!failing) log().warn({ err }, 'broadcast lane yield: cannot read the transactional lane');
        failing = true;
      }
      await sleep(opts.intervalMs, undefined, { signal: stopped.signal, ref: false }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
    },
  };
}

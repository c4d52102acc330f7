/**
 * Housekeeping wiring: the Redis stores and the send queues as the ports of the core use-case
 * (`runHousekeeping`), metrics and logs as its observer, run on an interval. The rules (what
 * expires, what is reported) live in packages/core/src/housekeeping.
 */
import { runHousekeeping, type HousekeepingObserver, type HousekeepingPorts } from '@petrel/core';
import { log, metrics } from '@petrel/observability';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

/** The observer of production: the jobs gauge, and a log line when ids were trimmed. */
export const housekeepingObserver: HousekeepingObserver = {
  queueJobs: (queue, state, count) => metrics.jobs().set({ queue, state }, count),
  listingsTrimmed: (trimmed) => log().info({ trimmed }, 'expired emails removed from listings'),
};

export function startHousekeeping(opts: {
  ports: HousekeepingPorts;
  retentionMs: number;
  intervalMs: number;
}): IntervalLoop {
  return startIntervalLoop(
    () => runHousekeeping(opts.ports, { retentionMs: opts.retentionMs }),
    opts.intervalMs,
    (err) => log().error({ err }, 'housekeeping round failed; trying again next interval'),
  );
}

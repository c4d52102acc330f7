/**
 * Stuck-email watchdog wiring: the teams, each team's unfinished-email index and the email
 * records (WatchdogStore), the send and import queues as the ports of the core use-case
 * (`sweepStuckEmails`), the gauge, counter and logs as its observer, run every
 * WATCHDOG_INTERVAL_S. The rules live in packages/core/src/watchdog.
 */
import {
  DEFAULT_RETRY_JITTER,
  DEFAULT_RETRY_SCHEDULE_S,
  retryWindowMs,
  sweepStuckEmails,
  systemClock,
} from '@petrel/core';
import type { JobState, QueuedImports, SendJobs, WatchdogObserver, WatchdogPorts } from '@petrel/core';
import type { ContactImportQueue, SendQueues } from '@petrel/queue';
import type { WatchdogStore } from '@petrel/store';
import { SEND_LANES } from '@petrel/contracts';
import { log, metrics } from '@petrel/observability';
import { newId } from '@petrel/core';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

/**
 * The observer of production: the age gauge per lane, and a counter plus a log line for every
 * action (a re-enqueued or failed email means a job was lost or a delivery ran out of time).
 */
const watchdogObserver: WatchdogObserver = {
  oldestAge: (lane, seconds) => metrics.oldestUnfinishedEmailAge().set({ lane }, seconds),
  acted: (action, detail) => {
    metrics.watchdogActions().inc({ action });
    const line = `stuck-email watchdog: ${action}`;
    if (action === 'forgotten') log().debug({ ...detail, action }, line);
    else log().warn({ ...detail, action }, line);
  },
};

const KNOWN_STATES = new Set([
  'waiting',
  'delayed',
  'prioritized',
  'waiting-children',
  'active',
  'completed',
]);

/** The send queues as the watchdog's port. */
export function sendJobsPort(queues: SendQueues): SendJobs {
  return {
    async state(lane, emailId, group): Promise<JobState> {
      const s = await queues.jobState(lane, emailId, group);
      if (s.state === 'failed') return { state: 'failed', failedReason: s.failedReason ?? '' };
      return KNOWN_STATES.has(s.state) ? ({ state: s.state } as JobState) : { state: 'missing' };
    },
    enqueue: (lane, jobs) => queues.enqueue(lane, jobs),
    remove: (lane, emailId) => queues.remove(lane, emailId),
  };
}

/** Contact imports left `queued`: the store finds them, the import queue re-enqueues them. */
export function queuedImportsPort(store: WatchdogStore, queue: ContactImportQueue): QueuedImports {
  return {
    queuedBefore: (teamId, cutoffMs) => store.queuedImportsBefore(teamId, cutoffMs),
    hasJob: async (importId) => (await queue.queue.getJobState(importId)) !== 'unknown',
    enqueue: (teamId, importId) => queue.enqueue(teamId, importId),
  };
}

export interface WatchdogOptions {
  ports: Omit<WatchdogPorts, 'observer' | 'clock' | 'ids'>;
  intervalMs: number;
  stuckAfterMs: number;
  /** RETRY_SCHEDULE_S as seconds (unset: the default ladder) and RETRY_TIME_SCALE. */
  retrySchedule?: readonly number[];
  retryTimeScale: number;
}

export function startWatchdog(opts: WatchdogOptions): IntervalLoop {
  // the series exist from the start, so dashboards and alerts see them before the first round
  for (const action of ['requeued', 'failed', 'forgotten', 'import_requeued'] as const)
    metrics.watchdogActions().inc({ action }, 0);
  for (const lane of SEND_LANES) metrics.oldestUnfinishedEmailAge().set({ lane }, 0);
  const ports: WatchdogPorts = {
    ...opts.ports,
    observer: watchdogObserver,
    clock: systemClock,
    ids: { newEventId: () => newId() },
  };
  const window = retryWindowMs(
    opts.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_S,
    opts.retryTimeScale,
    DEFAULT_RETRY_JITTER,
  );
  return startIntervalLoop(
    () => sweepStuckEmails(ports, { stuckAfterMs: opts.stuckAfterMs, retryWindowMs: window }),
    opts.intervalMs,
    (err) => log().error({ err }, 'stuck-email watchdog round failed; trying again next interval'),
  );
}

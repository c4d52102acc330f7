/**
 * While QUEUE_SHARDS changes, the workers also drain the send queues of the previous layout
 * (QUEUE_SHARDS_PREVIOUS). This watch tells the operator when that is done: every interval it
 * logs how many jobs those queues still hold, and once they hold none, that QUEUE_SHARDS_PREVIOUS
 * can be removed. It keeps watching: during a rolling deploy an API still on the old layout may
 * enqueue there again.
 */
import { log } from '@petrel/observability';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

/** What the watch reads of the send queues (SendQueues). */
export interface PreviousShards {
  /** Jobs that may still make an attempt in the previous layout; undefined when there is none. */
  previousPending(): Promise<number | undefined>;
}

/** What one round found, for the log. */
export type DrainReport = { pending: number } | { drained: true };

/**
 * One round: the report to log, or undefined when there is nothing new to say (no previous
 * layout, or still drained since the last round).
 */
export async function checkPreviousShards(
  queues: PreviousShards,
  wasDrained: boolean,
): Promise<DrainReport | undefined> {
  const pending = await queues.previousPending();
  if (pending === undefined) return undefined;
  if (pending > 0) return { pending };
  return wasDrained ? undefined : { drained: true };
}

export function startPreviousShardsWatch(
  queues: PreviousShards,
  previousShards: number | 'unsharded',
  intervalMs: number,
): IntervalLoop {
  let drained = false;
  return startIntervalLoop(
    async () => {
      const report = await checkPreviousShards(queues, drained);
      if (!report) return;
      drained = 'drained' in report;
      if ('pending' in report)
        log().info(
          { previousShards, pending: report.pending },
          'the send queues of QUEUE_SHARDS_PREVIOUS still hold jobs; the workers are draining them',
        );
      else
        log().info(
          { previousShards },
          'the send queues of QUEUE_SHARDS_PREVIOUS are drained: remove QUEUE_SHARDS_PREVIOUS from every process',
        );
    },
    intervalMs,
    (err) =>
      log().warn({ err }, 'could not count the jobs of QUEUE_SHARDS_PREVIOUS; trying again next interval'),
  );
}

/**
 * A group job's started mark: how the watchdog tells the emails of a group failed by BullMQ's
 * stall check that never started from those that may have.
 */
import type { Job } from '@petrel/queue';

/**
 * The group's mark of how many of its emails may have started (the job's progress, a count of
 * emails in order), written before any email at or past the last mark starts: `startAhead` more
 * at a time, so it costs one write per `startAhead` emails. The lane's limit starts a group's
 * emails in order (first attempts, all of them: it runs those first in, first out;
 * delivery-limiter.ts), so the emails at or past the mark never started. When the job is failed by BullMQ's stall check (its worker died too often),
 * the watchdog re-enqueues those as their own jobs instead of failing them
 * (`SendQueues.jobState`). The mark only grows, also across runs of the job.
 */
export function startedMark(
  job: Pick<Job, 'progress' | 'updateProgress'>,
  count: number,
  startAhead: number,
): (index: number) => Promise<void> {
  let mark = typeof job.progress === 'number' ? job.progress : 0;
  let written: Promise<void> = Promise.resolve();
  return (index) => {
    if (index >= mark) {
      mark = Math.min(count, index + Math.max(1, startAhead));
      written = job.updateProgress(mark);
    }
    // every email waits for the write that covers it, also when an earlier email issued it
    return written;
  };
}

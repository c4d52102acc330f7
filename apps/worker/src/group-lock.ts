/**
 * A group job's hold on its BullMQ lock, asked before each of its emails starts. A group runs for
 * as long as its emails take; if its lock expires meanwhile (Redis away for longer than
 * WORKER_LOCK_DURATION_MS, a blocked event loop), BullMQ's stall check gives the job to another
 * worker, which runs the group again — and this worker learns it only at its next lock renewal,
 * which may come after the other worker has started (https://docs.bullmq.io/guide/workers/stalled-jobs).
 * So no email of the group starts here unless a read of the lock, issued once the email has its
 * slot in the lane's bound, finds this worker's token. Once it does not, the group starts nothing
 * more: the worker that holds the job now runs the rest (it skips the emails that ended here by
 * their status, and the ones handed over by their own job). A duplicate can then come only from
 * the emails whose check passed before the loss and whose outcome the new owner does not see yet:
 * at most the deliveries running at once in this process (WORKER_CONCURRENCY).
 */
import type { SendQueueJob } from '@petrel/contracts';
import type { Job } from '@petrel/queue';

/**
 * Ends a group's attempt once its lock is lost. BullMQ then cannot move the job (its scripts
 * check the lock's token), so the job stays with the worker that holds it now: nothing is
 * handed back, no attempt is counted.
 */
export class GroupLockLostError extends Error {
  constructor(jobId: string | undefined, notStarted: number) {
    // a group's job, or an own job that waited for its slot (deliver-email.processor.ts)
    super(`job ${jobId} lost its lock; ${notStarted} of its emails left to the worker that holds it`);
    this.name = 'GroupLockLostError';
  }
}

export interface GroupLock {
  /**
   * True when the email may start: the lock read just now holds this worker's token. A read that
   * fails (Redis unreachable) rejects: that email is not sent and fails the attempt as a failed
   * write does, once the others have ended.
   */
  held(): Promise<boolean>;
  /** Whether a check found the lock gone (then every later `held` is false without a read). */
  readonly lost: boolean;
}

/** The lock of `job`, run with `token`, read through `holdsLock` (SendQueues.holdsLock). */
export function groupLock(
  job: Job<SendQueueJob>,
  token: string | undefined,
  holdsLock: (job: Job<SendQueueJob>, token: string | undefined) => Promise<boolean>,
): GroupLock {
  let lost = false;
  const check = async (): Promise<boolean> => {
    // true only if no other email's check found the lock gone meanwhile
    if ((await holdsLock(job, token)) && !lost) return true;
    lost = true;
    return false;
  };
  // The check not issued yet: it goes out once the current turn of the event loop is over
  // (setImmediate: after the I/O callbacks and their microtasks), so every email that got its
  // slot in this turn (the replies that ended several deliveries arrive together) waits for the
  // same GET, and each one's check is still issued after it got its slot.
  let next: Promise<boolean> | undefined;
  return {
    get lost() {
      return lost;
    },
    held() {
      if (lost) return Promise.resolve(false);
      next ??= new Promise<boolean>((resolve, reject) =>
        setImmediate(() => {
          // from here on an email waits for a check issued after it got its slot
          next = undefined;
          check().then(resolve, reject);
        }),
      );
      return next;
    },
  };
}

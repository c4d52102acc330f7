/**
 * Whether a running job is still the worker's own. BullMQ keeps the lock of an active job at
 * `<job key>:lock`, holding the token of the worker that runs it (the processor's second
 * argument); the worker renews it every `lockDuration / 2`. When a renewal does not come in time
 * (the worker's Redis was away longer than `lockDuration`, its event loop was blocked), the lock
 * expires, the stall check moves the job back to wait and another worker takes it with a token
 * of its own (https://docs.bullmq.io/guide/workers/stalled-jobs). The old worker is not told
 * until its next renewal, so work that must not run twice asks first: one GET of one key (one
 * hash slot, cluster-safe), built by the queue's own key builder as BullMQ's scripts build it.
 */
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';

/**
 * True when the lock of job `jobId` of `queue` holds `token`; false when it holds another
 * worker's token or none (expired: the stall check will hand the job to a worker again).
 */
export async function holdsJobLock(
  connection: Redis | Cluster,
  queue: Pick<Queue, 'toKey'>,
  jobId: string,
  token: string,
): Promise<boolean> {
  return (await connection.get(queue.toKey(`${jobId}:lock`))) === token;
}

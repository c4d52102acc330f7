/**
 * The transactional lane's per-process delivery bound (WORKER_CONCURRENCY deliveries at once),
 * shared by the emails of group jobs and by own jobs, with one rule of order: a due retry takes
 * the next free slot before the first attempts still queued; first attempts keep their order
 * among themselves (first in, first out), and so do retries.
 *
 * Why: a group job queues all its emails here at once, so a FIFO bound puts a retry that became
 * due behind every queued email of the active groups — seconds to minutes behind its ladder step
 * under load, although the ladder (the retry's reason to wait) is already over. A first attempt
 * waits for at most one more delivery per due retry ahead of it.
 *
 * p-queue (https://github.com/sindresorhus/p-queue#priority): `concurrency` bounds the tasks
 * running at once exactly (a task counts from its start until its promise settles), and its
 * priority queue runs a higher `priority` first and equal priorities in insertion order.
 */
import PQueue from 'p-queue';

/** Which turn a delivery takes: its first attempt, or a retry (an attempt was made before). */
export type DeliveryTurn = 'first' | 'retry';

/** Runs `fn` once a delivery slot is free for its turn; settles as `fn` does. */
export type DeliveryLimiter = <T>(fn: () => Promise<T>, turn?: DeliveryTurn) => Promise<T>;

const PRIORITY: Record<DeliveryTurn, number> = { first: 0, retry: 1 };

/** The turn of an own job's delivery: a retry once any attempt was made (in its group or its job). */
export const turnOf = (attemptsMade: number): DeliveryTurn => (attemptsMade > 0 ? 'retry' : 'first');

export function deliveryLimiter(concurrency: number): DeliveryLimiter {
  const queue = new PQueue({ concurrency });
  return (fn, turn = 'first') => queue.add(fn, { priority: PRIORITY[turn] });
}

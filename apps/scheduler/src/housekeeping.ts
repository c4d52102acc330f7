/**
 * Housekeeping: email records expire with their TTL (EMAIL_RETENTION_DAYS); this loop removes
 * their ids from each team's listing index, and samples queue sizes into the jobs gauge.
 * Scheduled emails themselves are delayed BullMQ jobs (job id = email id), promoted by BullMQ.
 */
import type { Redis } from 'ioredis';
import type { Keys } from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { log, metrics } from '@petrel/observability';

export async function runHousekeeping(deps: {
  redis: Redis;
  keys: Keys;
  queues: SendQueues;
  retentionMs: number;
  now?: number;
}): Promise<{ trimmed: number }> {
  const cutoff = (deps.now ?? Date.now()) - deps.retentionMs;
  const teams = await deps.redis.smembers(deps.keys.teams());
  let trimmed = 0;
  for (const teamId of teams) {
    trimmed += await deps.redis.zremrangebyscore(deps.keys.emails(teamId), '-inf', `(${cutoff}`);
  }
  const counts = await deps.queues.counts();
  for (const [lane, byState] of Object.entries(counts)) {
    for (const [state, n] of Object.entries(byState)) metrics.jobs().set({ queue: lane, state }, n);
  }
  if (trimmed > 0) log().info({ trimmed }, 'expired emails removed from listings');
  return { trimmed };
}

/** Run housekeeping every `intervalMs` until stopped; a failing round is logged, never fatal. */
export function startHousekeeping(deps: Parameters<typeof runHousekeeping>[0], intervalMs: number) {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = runHousekeeping(deps).catch((err: unknown) => log().error({ err }, 'housekeeping failed'));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

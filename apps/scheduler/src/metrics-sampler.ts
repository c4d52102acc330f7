/**
 * The gauges operators scale and alert on, sampled every METRICS_SAMPLE_INTERVAL_S: the send
 * queues' job counts by lane and state (`petrel_queue_jobs`: what KEDA or an HPA scale the
 * workers on — housekeeping reports them too, but only every HOUSEKEEPING_INTERVAL_S) and the
 * memory of every Redis node (`petrel_redis_memory_used_bytes`, `petrel_redis_maxmemory_bytes`:
 * with `noeviction` a full Redis refuses writes). Read-only, so several schedulers may sample at
 * once; dashboards take the max over them.
 */
import type { QueueCounts } from '@petrel/core';
import { log, metrics } from '@petrel/observability';
import { redisMemory, type RedisClient } from '@petrel/store';
import { housekeepingObserver } from './housekeeping.js';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

async function sampleMetrics(redis: RedisClient, queues: QueueCounts): Promise<void> {
  const [counts, memory] = await Promise.all([queues.counts(), redisMemory(redis)]);
  for (const [queue, byState] of Object.entries(counts)) {
    for (const [state, n] of Object.entries(byState)) housekeepingObserver.queueJobs(queue, state, n);
  }
  for (const { node, usedBytes, maxBytes } of memory) {
    metrics.redisMemoryUsed().set({ node }, usedBytes);
    metrics.redisMemoryMax().set({ node }, maxBytes);
  }
}

/** Samples once now (the gauges exist from the start), then every `intervalMs`. */
export async function startMetricsSampler(opts: {
  redis: RedisClient;
  queues: QueueCounts;
  intervalMs: number;
}): Promise<IntervalLoop> {
  const onError = (err: unknown) =>
    log().warn({ err }, 'sampling queue and Redis gauges failed; next interval');
  await sampleMetrics(opts.redis, opts.queues).catch(onError);
  return startIntervalLoop(() => sampleMetrics(opts.redis, opts.queues), opts.intervalMs, onError);
}

/** The scheduler process's components: housekeeping now; broadcast scheduling joins it later. */
import { Keys, createRedis, pingRedis } from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import { logConnectionError } from '@petrel/observability';
import { startHousekeeping } from './housekeeping.js';
import type { SchedulerConfig } from './config.js';

export async function startScheduler(config: SchedulerConfig) {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is required to start the scheduler');
  const redis = createRedis(
    config.REDIS_URL,
    'command',
    'petrel-scheduler',
    logConnectionError('petrel-scheduler'),
  );
  const keys = new Keys(config.REDIS_KEY_PREFIX);
  const queues = new SendQueues(redis, {
    prefix: `${config.REDIS_KEY_PREFIX}:bull`,
  });
  const housekeeping = startHousekeeping(
    { redis, keys, queues, retentionMs: config.EMAIL_RETENTION_DAYS * 86_400_000 },
    config.HOUSEKEEPING_INTERVAL_S * 1000,
  );
  return {
    ready: () => pingRedis(redis),
    async close() {
      await housekeeping.stop();
      await queues.close();
      await redis.quit().catch(() => undefined);
    },
  };
}

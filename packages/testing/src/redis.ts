// Redis for integration, e2e and chaos tests: a Docker container when an engine is reachable,
// otherwise the local `redis-server` binary (the normal case on the dev box and CI runner,
// which have no Docker engine). Both run production's durability settings: AOF with
// everysec fsync, noeviction, no RDB snapshots.
import { startContainerRedis } from './redis-container.js';
import { startLocalRedis } from './redis-local.js';
import type { StartRedisOptions, TestRedis } from './redis-options.js';

export type { StartRedisOptions, TestRedis } from './redis-options.js';

let containerRuntime: Promise<boolean> | undefined;

/**
 * Whether a container engine answers. Asked once per process: without an engine the answer
 * ("no container runtime") does not change, and asking costs ~0.4 s.
 */
function containerRuntimeAvailable(): Promise<boolean> {
  containerRuntime ??= (async () => {
    try {
      const { getContainerRuntimeClient } = await import('testcontainers');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('container runtime probe timed out')), 5_000);
      });
      try {
        await Promise.race([getContainerRuntimeClient(), timeout]);
      } finally {
        clearTimeout(timer);
      }
      return true;
    } catch {
      return false;
    }
  })();
  return containerRuntime;
}

/**
 * Starts a Redis for one suite. `PETREL_TEST_REDIS=local|container` skips the runtime probe
 * and forces a mode; by default a reachable container engine wins, else the local binary.
 */
export async function startRedis(opts: StartRedisOptions = {}): Promise<TestRedis> {
  const forced = process.env.PETREL_TEST_REDIS;
  const useContainer = forced === 'container' || (forced !== 'local' && (await containerRuntimeAvailable()));
  return useContainer ? startContainerRedis(opts) : startLocalRedis(opts);
}

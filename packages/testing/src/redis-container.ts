// Redis in a Docker container through @testcontainers/redis, for machines with an engine.
// The host port is fixed at start so that restart() keeps the URL; the AOF lives in the
// container's /data, which survives a kill and a restart of the same container.
import { freePort } from './free-port.js';
import { harnessArgs, redisArgs, type StartRedisOptions, type TestRedis } from './redis-options.js';
import { waitForRedis } from './redis-ping.js';

/** Same major line as Debian's redis-server 7.0 used by the local fallback. */
const REDIS_IMAGE = 'redis:7.2-alpine';

/** Starts a Redis container with the harness flags, published on a fixed host port. */
export async function startContainerRedis(opts: StartRedisOptions = {}): Promise<TestRedis> {
  const [{ RedisContainer }, { getContainerRuntimeClient }] = await Promise.all([
    import('@testcontainers/redis'),
    import('testcontainers'),
  ]);
  const port = opts.port ?? (await freePort());
  let builder = new RedisContainer(REDIS_IMAGE)
    .withCommand(['redis-server', ...redisArgs({ 'protected-mode': 'no' }), ...harnessArgs(opts)])
    .withExposedPorts({ container: 6379, host: port });
  if (opts.dir !== undefined)
    builder = builder.withBindMounts([{ source: opts.dir, target: '/data', mode: 'rw' }]);
  const container = await builder.start();
  const host = container.getHost();
  let stopped = false;

  return {
    url: `redis://${host}:${port}`,
    host,
    port,
    dir: opts.dir ?? '/data',
    mode: 'container',
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.stop({ timeout: 10_000 });
    },
    kill(signal = 'SIGKILL') {
      void getContainerRuntimeClient()
        .then((client) => client.container.getById(container.getId()).kill({ signal }))
        .catch(() => undefined);
    },
    async restart() {
      if (stopped) throw new Error('restart() after stop(): the container is gone');
      await container.restart({ timeout: 10_000 });
      await waitForRedis(host, port);
    },
  };
}

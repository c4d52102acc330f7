/**
 * Entry of a worker process alone (`npm run start:worker`): send workers for both lanes plus the
 * health/metrics server. Run N copies against one REDIS_URL to scale sending.
 */
import { enableDefaultMetrics, initLogger, Lifecycle, log, startHealthServer } from '@petrel/observability';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

const config = loadWorkerConfig();
initLogger({ level: config.LOG_LEVEL, name: 'worker' });
enableDefaultMetrics('worker');
const lifecycle = new Lifecycle();
lifecycle.installSignalHandlers();
try {
  const worker = await startWorker(config);
  lifecycle.onStop('worker', () => worker.close());
  const health = await startHealthServer({
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    timeouts: config,
    ready: worker.ready,
  });
  lifecycle.onStop('health', () => health.close());
} catch (err) {
  log().fatal({ err }, 'worker failed to start');
  process.exit(1);
}

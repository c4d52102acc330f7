/** Entry of the scheduler process alone (`npm run start:scheduler`). Run one (or a few) per cluster. */
import { enableDefaultMetrics, initLogger, Lifecycle, log, startHealthServer } from '@petrel/observability';
import { loadSchedulerConfig } from './config.js';
import { startScheduler } from './scheduler.js';

const config = loadSchedulerConfig();
initLogger({ level: config.LOG_LEVEL, name: 'scheduler' });
enableDefaultMetrics('scheduler');
const lifecycle = new Lifecycle();
lifecycle.installSignalHandlers();
try {
  const scheduler = await startScheduler(config);
  lifecycle.onStop('scheduler', () => scheduler.close());
  const health = await startHealthServer({
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    timeouts: config,
    ready: scheduler.ready,
  });
  lifecycle.onStop('health', () => health.close());
} catch (err) {
  log().fatal({ err }, 'scheduler failed to start');
  process.exit(1);
}

/**
 * Entry of the API process alone (`npm run start:api`): parse config, start the health/metrics
 * server and the HTTP API, close both on SIGTERM. Scale by running N copies behind a balancer.
 */
import { enableDefaultMetrics, initLogger, Lifecycle, startHealthServer, log } from '@petrel/observability';
import { loadApiConfig } from './config.js';
import { startApi } from './server.js';

const config = loadApiConfig();
initLogger({ level: config.LOG_LEVEL, name: 'api' });
enableDefaultMetrics('api');
const lifecycle = new Lifecycle();
lifecycle.installSignalHandlers();

try {
  const api = await startApi(config);
  lifecycle.onStop('api', () => api.close());
  const health = await startHealthServer({
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    timeouts: config,
    ready: async () => (await fetch(`http://127.0.0.1:${api.port}/ready`)).ok,
  });
  lifecycle.onStop('health', () => health.close());
} catch (err) {
  log().fatal({ err }, 'API failed to start');
  process.exit(1);
}

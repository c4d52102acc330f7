/** Entry of the webhook dispatcher alone (`npm run start:webhooks`). Run any number per deployment. */
import { enableDefaultMetrics, initLogger, Lifecycle, log, startHealthServer } from '@petrel/observability';
import { loadWebhooksConfig } from './config.js';
import { startWebhookDispatcher } from './dispatcher.js';

const config = loadWebhooksConfig();
initLogger({ level: config.LOG_LEVEL, name: 'webhooks' });
enableDefaultMetrics('webhooks');
const lifecycle = new Lifecycle();
lifecycle.installSignalHandlers();
try {
  const dispatcher = await startWebhookDispatcher(config);
  lifecycle.onStop('webhooks', () => dispatcher.close());
  const health = await startHealthServer({
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    timeouts: config,
    ready: dispatcher.ready,
  });
  lifecycle.onStop('health', () => health.close());
} catch (err) {
  log().fatal({ err }, 'webhook dispatcher failed to start');
  process.exit(1);
}

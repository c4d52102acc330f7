/** Entry of the SMTP process alone (`npm run start:smtp`): submission (and inbound) servers. */
import { enableDefaultMetrics, initLogger, Lifecycle, log, startHealthServer } from '@petrel/observability';
import { loadSmtpConfig } from './config.js';
import { startSmtp } from './smtp.js';

const config = loadSmtpConfig();
initLogger({ level: config.LOG_LEVEL, name: 'smtp' });
enableDefaultMetrics('smtp');
const lifecycle = new Lifecycle();
lifecycle.installSignalHandlers();
try {
  const smtp = await startSmtp(config);
  lifecycle.onStop('smtp', () => smtp.close());
  const health = await startHealthServer({
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    timeouts: config,
    ready: smtp.ready,
  });
  lifecycle.onStop('health', () => health.close());
} catch (err) {
  log().fatal({ err }, 'smtp failed to start');
  process.exit(1);
}

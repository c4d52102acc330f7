/** Entry of the webhook dispatcher alone (`npm run start:webhooks`). Run any number per deployment. */
import { runProcess, serve } from '@petrel/runtime';
import { loadWebhooksConfig } from './config.js';
import { startWebhookDispatcher } from './dispatcher.js';

await runProcess({
  name: 'webhooks',
  title: 'webhook dispatcher',
  loadConfig: loadWebhooksConfig,
  start: serve('webhooks', (config, rt) => startWebhookDispatcher(config, {}, rt)),
});

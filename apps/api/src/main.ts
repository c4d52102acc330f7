/**
 * Entry of the API process alone (`npm run start:api`): parse config, start the health/metrics
 * server and the HTTP API, close both on SIGTERM. Scale by running N copies behind a balancer.
 */
import { runProcess, serve } from '@petrel/runtime';
import { loadApiConfig } from './config.js';
import { startApi } from './server.js';

await runProcess({
  name: 'api',
  title: 'API',
  loadConfig: loadApiConfig,
  start: serve('api', (config, rt) => startApi(config, {}, rt)),
});

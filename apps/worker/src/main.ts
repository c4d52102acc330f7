/**
 * Entry of a worker process alone (`npm run start:worker`): send workers for both lanes plus the
 * health/metrics server. Run N copies against one REDIS_URL to scale sending.
 */
import { runProcess, serve } from '@petrel/runtime';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

await runProcess({
  name: 'worker',
  title: 'worker',
  loadConfig: loadWorkerConfig,
  start: serve('worker', (config, rt) => startWorker(config, {}, rt)),
});

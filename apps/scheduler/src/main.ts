/** Entry of the scheduler process alone (`npm run start:scheduler`). Run one (or a few) per cluster. */
import { runProcess, serve } from '@petrel/runtime';
import { loadSchedulerConfig } from './config.js';
import { startScheduler } from './scheduler.js';

await runProcess({
  name: 'scheduler',
  title: 'scheduler',
  loadConfig: loadSchedulerConfig,
  start: serve('scheduler', (config, rt) => startScheduler(config, {}, rt)),
});

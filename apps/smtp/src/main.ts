/** Entry of the SMTP process alone (`npm run start:smtp`): submission (and inbound) servers. */
import { runProcess, serve } from '@petrel/runtime';
import { loadSmtpConfig } from './config.js';
import { startSmtp } from './smtp.js';

await runProcess({
  name: 'smtp',
  title: 'smtp',
  loadConfig: loadSmtpConfig,
  start: serve('smtp', (config, rt) => startSmtp(config, {}, rt)),
});

/**
 * `npm start`: Petrel in one process (API, send workers, scheduler) on embedded defaults.
 */
import { log } from '@petrel/observability';
import { runProcess } from '@petrel/runtime';
import { loadPetrelConfig } from './config.js';
import { startAllInOne } from './all-in-one.js';

await runProcess({
  name: 'petrel',
  title: 'Petrel',
  loadConfig: loadPetrelConfig,
  async start(config, lifecycle) {
    const started = await startAllInOne(config, lifecycle);
    const base = config.PUBLIC_URL ?? `http://localhost:${started.apiPort}`;
    if (started.firstKey) {
      process.stdout.write(
        [
          '',
          'Petrel created your first API key. It is shown only this once: store it now.',
          '',
          `  ${started.firstKey}`,
          '',
          'Use it with the official resend SDK:',
          '',
          `  const resend = new Resend('${started.firstKey}', { baseUrl: '${base}' });`,
          `  await resend.emails.send({ from: 'Acme <hello@example.com>', to: 'you@example.com', subject: 'Hi', html: '<p>It works</p>' });`,
          '',
          `The dashboard: ${base}/dashboard (sign in with this key)`,
          '',
        ].join('\n') + '\n',
      );
    }
    log().info(
      {
        api: base,
        dashboard: `${base}/dashboard`,
        metrics: `http://127.0.0.1:${started.metricsPort}/metrics`,
        redis: started.redisUrl,
        smtp: started.smtpUrl,
        smtpServers: started.smtpPorts,
      },
      'Petrel is running',
    );
  },
});

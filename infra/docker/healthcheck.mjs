// Docker HEALTHCHECK of the Petrel image: GET /ready on the health server of the app this
// container runs. The port is METRICS_PORT when set, else the app's default (METRICS_PORTS in
// packages/config), the app found from the running `node apps/<app>/dist/main.js`.
/* global fetch, AbortSignal */
import { readdirSync, readFileSync } from 'node:fs';

const DEFAULT_PORTS = { api: 9464, petrel: 9464, worker: 9465, scheduler: 9466, webhooks: 9467, smtp: 9468 };

function runningApp() {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const match = /apps\/(\w+)\/dist\/main\.js/.exec(cmdline);
      if (match) return match[1];
    } catch {
      // the process ended meanwhile
    }
  }
  return undefined;
}

// A probe outside the apps: it reads the variable the app itself reads through packages/config.
// eslint-disable-next-line no-restricted-properties
const port = process.env.METRICS_PORT || DEFAULT_PORTS[runningApp() ?? ''];
if (!port) {
  console.error('no Petrel app runs in this container');
  process.exit(1);
}
try {
  const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(4000) });
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`GET /ready on port ${port}: ${err.message}`);
  process.exit(1);
}

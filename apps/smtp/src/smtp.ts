/**
 * Start the SMTP app on a runtime: the submission server (and its implicit-TLS twin), and the
 * other SMTP servers of this app. Used by `main.ts` (SMTP alone) and by the all-in-one launcher,
 * which hands it the process's runtime.
 */
import { hostname as osHostname } from 'node:os';
import { log } from '@petrel/observability';
import { partStart, type Component, type Runtime } from '@petrel/runtime';
import type { SmtpConfig } from './config.js';
import { loadTls } from './tls.js';
import type { SmtpContext, SmtpListener } from './context.js';
import { startSubmission } from './submission/server.js';
import { startInbound } from './inbound/server.js';

export interface SmtpHandle extends Component {
  /** Listening port by listener name (`submission`, `submission-tls`, …). */
  ports: Record<string, number>;
}

/** The SMTP servers on the all-in-one's runtime (`shared`), or on one of its own (partStart). */
export const startSmtp = partStart(
  'smtp',
  'the SMTP servers',
  async (config: SmtpConfig, rt: Runtime): Promise<Omit<SmtpHandle, 'ready'>> => {
    const hostname = config.SMTP_HOSTNAME ?? osHostname();
    const ctx: SmtpContext = {
      config,
      rt,
      tls: await loadTls({ certPath: config.SMTP_TLS_CERT, keyPath: config.SMTP_TLS_KEY, hostname }),
      hostname,
    };
    const listeners: SmtpListener[] = [];
    // Servers first (no new sessions), then what their sessions used (partStart closes the runtime).
    const closeAll = async () => {
      await Promise.all(listeners.map((l) => l.close()));
    };
    try {
      listeners.push(...(await startSubmission(ctx)));
      // Further servers of this app start here, each adding its listeners.
      listeners.push(...(await startInbound(ctx)));
    } catch (err) {
      await closeAll();
      throw err;
    }
    const ports = Object.fromEntries(listeners.map((l) => [l.name, l.port]));
    log().info({ ports }, 'SMTP listening');
    return { ports, close: closeAll };
  },
);

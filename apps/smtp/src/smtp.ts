/**
 * Start the SMTP app on a runtime: the submission server (and its implicit-TLS twin), and the
 * other SMTP servers of this app. Used by `main.ts` (SMTP alone) and by the all-in-one launcher,
 * which hands it the process's runtime.
 */
import { hostname as osHostname } from 'node:os';
import { log } from '@petrel/observability';
import { partRuntime, type Runtime } from '@petrel/runtime';
import type { SmtpConfig } from './config.js';
import { loadTls } from './tls.js';
import type { SmtpContext, SmtpListener } from './context.js';
import { startSubmission } from './submission/server.js';
import { startInbound } from './inbound/server.js';

export interface SmtpHandle {
  /** Listening port by listener name (`submission`, `submission-tls`, …). */
  ports: Record<string, number>;
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export async function startSmtp(
  config: SmtpConfig,
  /** The all-in-one's runtime; without it the SMTP app opens (and closes) its own. */
  shared?: Runtime,
): Promise<SmtpHandle> {
  const { rt, release } = partRuntime(config, 'smtp', 'the SMTP servers', shared);
  const hostname = config.SMTP_HOSTNAME ?? osHostname();
  const ctx: SmtpContext = {
    config,
    rt,
    tls: await loadTls({ certPath: config.SMTP_TLS_CERT, keyPath: config.SMTP_TLS_KEY, hostname }),
    hostname,
  };
  const listeners: SmtpListener[] = [];
  const closeAll = async () => {
    // Servers first (no new sessions), then what their sessions used.
    await Promise.all(listeners.map((l) => l.close()));
    await release();
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
  return { ports, ready: () => rt.ready(), close: closeAll };
}

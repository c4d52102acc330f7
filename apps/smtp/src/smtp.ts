/**
 * Start the SMTP app against a Redis URL: the submission server (and its implicit-TLS twin), and
 * the other SMTP servers of this app. Used by `main.ts` (SMTP alone) and by the all-in-one
 * launcher.
 */
import { hostname as osHostname } from 'node:os';
import { Keys, createRedis, pingRedis } from '@petrel/store';
import { log, logConnectionError } from '@petrel/observability';
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

export async function startSmtp(config: SmtpConfig): Promise<SmtpHandle> {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is required to start the SMTP servers');
  const redis = createRedis(config.REDIS_URL, 'command', 'petrel-smtp', logConnectionError('petrel-smtp'));
  const hostname = config.SMTP_HOSTNAME ?? osHostname();
  const ctx: SmtpContext = {
    config,
    redis,
    keys: new Keys(config.REDIS_KEY_PREFIX),
    tls: await loadTls({ certPath: config.SMTP_TLS_CERT, keyPath: config.SMTP_TLS_KEY, hostname }),
    hostname,
  };
  const listeners: SmtpListener[] = [];
  const closeAll = async () => {
    // Servers first (no new sessions), then what their sessions used.
    await Promise.all(listeners.map((l) => l.close()));
    for (const stop of cleanups.reverse()) await stop();
    await redis.quit().catch(() => undefined);
  };
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const submission = await startSubmission(ctx);
    listeners.push(...submission.listeners);
    cleanups.push(submission.close);
    // Further servers of this app start here, each adding its listeners.
    await startInbound(ctx, { listeners, cleanups });
  } catch (err) {
    await closeAll();
    throw err;
  }
  const ports = Object.fromEntries(listeners.map((l) => [l.name, l.port]));
  log().info({ ports }, 'SMTP listening');
  return { ports, ready: () => pingRedis(redis), close: closeAll };
}

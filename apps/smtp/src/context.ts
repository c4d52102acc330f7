/** What the SMTP servers of this app share, and what each hands back when listening. */
import type { AddressInfo } from 'node:net';
import type { SMTPServer } from 'smtp-server';
import { log } from '@petrel/observability';
import type { Runtime } from '@petrel/runtime';
import type { SmtpConfig } from './config.js';
import type { TlsMaterial } from './tls.js';

/** What every SMTP server of this app shares. */
export interface SmtpContext {
  config: SmtpConfig;
  /** The process's stores, queues and accept path. */
  rt: Runtime;
  tls: TlsMaterial;
  /** Name in greetings and EHLO replies. */
  hostname: string;
}

/** One listening server; `close` stops accepting and ends its sessions. */
export interface SmtpListener {
  /** e.g. `submission`, `submission-tls`. */
  name: string;
  port: number;
  close(): Promise<void>;
}

/** Listen on `port` (0: a free one); the listener's close ends open sessions. */
export async function listen(
  name: string,
  server: SMTPServer,
  port: number,
  ctx: Pick<SmtpContext, 'config'>,
): Promise<SmtpListener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ctx.config.SMTP_BIND_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => log().warn({ err, server: name }, 'SMTP server error'));
  const actual = (server.server.address() as AddressInfo).port;
  return { name, port: actual, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

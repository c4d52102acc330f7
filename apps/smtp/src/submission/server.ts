/** The submission server (RFC 6409): STARTTLS port and optional implicit-TLS port. */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { SmtpContext, SmtpListener } from '../context.js';

export async function startSubmission(
  ctx: SmtpContext,
): Promise<{ listeners: SmtpListener[]; close(): Promise<void> }> {
  const base: SMTPServerOptions = {
    name: ctx.hostname,
    key: ctx.tls.key,
    cert: ctx.tls.cert,
    size: ctx.config.SMTP_SUBMISSION_MAX_BYTES,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback(Object.assign(new Error('not ready'), { responseCode: 451 })));
    },
  };
  const listeners = [await listen('submission', new SMTPServer(base), ctx.config.SMTP_SUBMISSION_PORT, ctx)];
  if (ctx.config.SMTP_SUBMISSION_TLS_PORT !== 'off') {
    const tls = new SMTPServer({ ...base, secure: true });
    listeners.push(await listen('submission-tls', tls, ctx.config.SMTP_SUBMISSION_TLS_PORT, ctx));
  }
  return { listeners, close: async () => undefined };
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
  const actual = (server.server.address() as AddressInfo).port;
  return { name, port: actual, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

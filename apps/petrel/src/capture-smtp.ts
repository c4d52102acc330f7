/**
 * The local capture SMTP server of all-in-one mode (when SMTP_URL is unset): accepts every
 * message on loopback and keeps it as an .eml file under <DATA_DIR>/mail, so a developer can look
 * at exactly what Petrel sent. Nothing is relayed anywhere.
 */
import { mkdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CaptureSmtp {
  url: string;
  dir: string;
  count(): number;
  stop(): Promise<void>;
}

export async function startCaptureSmtp(opts: { dataDir: string; port: number }): Promise<CaptureSmtp> {
  const dir = resolve(opts.dataDir, 'mail');
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    banner: 'Petrel capture server: mail is kept locally, never relayed',
    size: 60 * 1024 * 1024,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const head = raw.subarray(0, 8192).toString('latin1');
        const mid = /^message-id:\s*<([^>\r\n]+)>/im.exec(head)?.[1] ?? `${Date.now()}`;
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}_${mid.replace(/[^\w.@-]/g, '_')}.eml`;
        const rcpt = session.envelope.rcptTo.map((r) => r.address);
        const envelope = `X-Petrel-Envelope-From: ${session.envelope.mailFrom ? session.envelope.mailFrom.address : ''}\r\nX-Petrel-Envelope-To: ${rcpt.join(', ')}\r\n`;
        // Written under a hidden name, then renamed: a rename within a directory is atomic
        // (POSIX rename(2)), so a mail client or `ls` never sees half a message.
        const path = resolve(dir, name);
        writeFile(`${resolve(dir, `.${name}`)}.part`, Buffer.concat([Buffer.from(envelope), raw]))
          .then(() => rename(`${resolve(dir, `.${name}`)}.part`, path))
          .then(() => {
            count += 1;
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.port, '127.0.0.1', () => res());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    dir,
    count: () => count,
    stop: () => new Promise<void>((res) => server.close(() => res())),
  };
}

/**
 * SMTP submission end to end with a real SMTP client (nodemailer) against the stack's submission
 * server: STARTTLS and implicit TLS with an API key as the password, the email readable with the
 * official `resend` SDK and delivered to the SMTP sink; AUTH before TLS refused (538); wrong keys
 * refused and throttled; the Resend-Idempotency-Key header; Bcc from the envelope; refusals as
 * 5xx replies; the size limit (552); and the SMTP smuggling payloads of RELIABILITY R22, which
 * must never yield a second message.
 *
 * Shared by the single-node suite and the Redis Cluster suite.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createTransport, type SendMailOptions, type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SinkMessage } from '@petrel/testing';
import type { Stack } from '../helpers.js';

/** The stack settings the scenarios rely on (a small size limit, to test 552). */
export const SMTP_SUBMISSION_MAX_BYTES = 300_000;
export const SMTP_SUBMISSION_ENV = { SMTP_SUBMISSION_MAX_BYTES: String(SMTP_SUBMISSION_MAX_BYTES) };

const FROM = 'Acme <hello@acme.test>';

/** A nodemailer transport to the stack's submission server (self-signed certificate). */
export function submissionTransport(
  port: number,
  pass: string,
  over: SMTPPool.Options = {},
): Transporter<SMTPPool.SentMessageInfo> {
  return createTransport({
    pool: false,
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    auth: { user: 'resend', pass },
    tls: { rejectUnauthorized: false },
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 10_000,
    ...over,
  });
}

/** The email id of a 250 reply (`250 2.6.0 OK <id>`). */
export const idOf = (response: string): string => {
  const m = /^250 [\d.]+ OK (\S+)/.exec(response);
  if (!m) throw new Error(`not an accepted reply: ${response}`);
  return m[1]!;
};

/** What a rejected send reports: nodemailer's SMTP error has the reply code and text. */
async function refusal(
  p: Promise<unknown>,
): Promise<{ responseCode?: number; response?: string; code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as { responseCode?: number; response?: string; code?: string };
  }
  throw new Error('expected the submission to be refused');
}

/**
 * A raw SMTP session, for what a well-behaved client never sends: reads reply lines, writes
 * bytes as given, upgrades with STARTTLS.
 */
export class RawSmtp {
  private buffer = '';
  private readonly replies: string[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  private constructor(private socket: Socket | TLSSocket) {
    this.attach(socket);
  }

  static async open(port: number): Promise<RawSmtp> {
    const socket = netConnect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const s = new RawSmtp(socket);
    expect(await s.reply()).toMatch(/^220 /);
    return s;
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.buffer += d;
      let i: number;
      while ((i = this.buffer.indexOf('\r\n')) >= 0) {
        this.replies.push(this.buffer.slice(0, i));
        this.buffer = this.buffer.slice(i + 2);
      }
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('error', () => undefined);
  }

  write(bytes: string): void {
    this.socket.write(Buffer.from(bytes, 'latin1'));
  }

  /** The next complete reply (multi-line replies joined with \n), or `closed`. */
  async reply(timeoutMs = 10_000): Promise<string> {
    const lines: string[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.replies.length > 0) {
        const line = this.replies.shift()!;
        lines.push(line);
        if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) return lines.join('\n');
      }
      if (this.closed) return lines.length > 0 ? lines.join('\n') : 'closed';
      if (Date.now() > deadline)
        throw new Error(`no SMTP reply within ${timeoutMs} ms (got: ${lines.join('|')})`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 100);
      });
      this.waiter = undefined;
    }
  }

  async command(line: string): Promise<string> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** Replies that arrived without being asked for (e.g. to smuggled commands). */
  pending(): string[] {
    return [...this.replies];
  }

  async startTls(): Promise<void> {
    expect(await this.command('STARTTLS')).toMatch(/^220 /);
    await this.upgrade();
  }

  /** The TLS handshake, after the server's 220 to STARTTLS. */
  async upgrade(): Promise<void> {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('close');
    const secure = tlsConnect({ socket: this.socket, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    this.socket = secure;
    this.attach(secure);
  }

  /** EHLO, STARTTLS, EHLO, AUTH PLAIN with `key`. */
  static async authenticated(port: number, key: string): Promise<RawSmtp> {
    const s = await RawSmtp.open(port);
    expect(await s.command('EHLO raw.test')).toMatch(/^250 /m);
    await s.startTls();
    expect(await s.command('EHLO raw.test')).toMatch(/^250 /m);
    const plain = Buffer.from(`\0resend\0${key}`).toString('base64');
    expect(await s.command(`AUTH PLAIN ${plain}`)).toMatch(/^235 /);
    return s;
  }

  end(): void {
    this.socket.destroy();
  }
}

export function smtpSubmissionScenarios(current: () => Stack): void {
  let stack: Stack;
  let port: number;
  beforeEach(() => {
    stack = current();
    port = stack.smtpPorts.submission!;
  });
  let n = 0;
  /** A fresh address per call, so tests do not see each other's mail. */
  const addr = (name: string) => `${name}.${++n}@smtp.test`;
  const copiesOf = (id: string): SinkMessage[] => stack.sink.byMessageId(`<${id}@acme.test>`);

  /** Sends over a fresh authenticated STARTTLS session; the id from the 250 reply. */
  async function submit(mail: SendMailOptions, over: SMTPPool.Options = {}): Promise<string> {
    const transport = submissionTransport(port, stack.key, over);
    try {
      const info = await transport.sendMail(mail);
      return idOf(info.response);
    } finally {
      transport.close();
    }
  }

  describe('submission over STARTTLS and implicit TLS', () => {
    it('an authenticated submission reaches the sink and reads back with resend.emails.get', async () => {
      const [to, cc] = [addr('to'), addr('cc')];
      const id = await submit({
        from: FROM,
        to,
        cc,
        replyTo: 'Support <help@acme.test>',
        subject: 'Over SMTP',
        html: '<p>Hello <b>SMTP</b></p>',
        text: 'Hello SMTP',
        headers: { 'X-Entity-Ref-ID': 'order-42' },
        attachments: [{ filename: 'note.txt', content: 'attached text' }],
      });
      const { data, error } = await stack.resend.emails.get(id);
      expect(error).toBeNull();
      expect(data).toMatchObject({
        id,
        from: FROM,
        to: [to],
        cc: [cc],
        reply_to: ['Support <help@acme.test>'],
        subject: 'Over SMTP',
        html: '<p>Hello <b>SMTP</b></p>',
      });
      await stack.settled([id]);
      const [copy, ...more] = copiesOf(id);
      expect(more).toEqual([]);
      expect(copy!.envelope.to.sort()).toEqual([to, cc].sort());
      expect(copy!.parsed.subject).toBe('Over SMTP');
      expect(copy!.parsed.headers.find((h) => h.key === 'x-entity-ref-id')?.value).toBe('order-42');
      expect(copy!.parsed.attachments.map((a) => a.filename)).toEqual(['note.txt']);
      const { data: listed } = await stack.resend.emails.list();
      expect(listed?.data.map((e) => e.id)).toContain(id);
    });

    it('implicit TLS (SMTP_SUBMISSION_TLS_PORT) accepts the same way', async () => {
      const to = addr('tls');
      const id = await submit(
        { from: FROM, to, subject: 'Implicit TLS', text: 'hi' },
        { port: stack.smtpPorts['submission-tls']!, secure: true, requireTLS: false },
      );
      await stack.settled([id]);
      expect(copiesOf(id)).toHaveLength(1);
    });

    it('many messages on one pooled connection each get their own email, each reply timed', async () => {
      // petrel_smtp_submission_reply_seconds: final dot to reply, one observation per message
      const replies = async () =>
        Number(
          /^petrel_smtp_submission_reply_seconds_count\{[^}]*reply="2xx"[^}]*\} (\d+)/m.exec(
            await (await fetch(stack.metricsUrl)).text(),
          )?.[1],
        );
      const before = await replies();
      const transport = submissionTransport(port, stack.key, { pool: true, maxConnections: 2 });
      try {
        const infos = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            transport.sendMail({ from: FROM, to: addr(`pool${i}`), subject: `Pooled ${i}`, text: `${i}` }),
          ),
        );
        const ids = infos.map((i) => idOf(i.response));
        expect(new Set(ids).size).toBe(10);
        expect((await replies()) - before).toBe(10);
        await stack.settled(ids);
        for (const id of ids) expect(copiesOf(id)).toHaveLength(1);
      } finally {
        transport.close();
      }
    });
  });

  describe('authentication', () => {
    it('AUTH before STARTTLS is refused with 538, whatever the key', async () => {
      const err = await refusal(
        submit(
          { from: FROM, to: addr('x'), subject: 's', text: 't' },
          { ignoreTLS: true, requireTLS: false },
        ),
      );
      expect(err.responseCode).toBe(538);
      const raw = await RawSmtp.open(port);
      await raw.command('EHLO raw.test');
      const plain = Buffer.from(`\0resend\0${stack.key}`).toString('base64');
      expect(await raw.command(`AUTH PLAIN ${plain}`)).toMatch(/^538 /);
      // and mail without AUTH is refused too
      expect(await raw.command('MAIL FROM:<hello@acme.test>')).toMatch(/^530 /);
      raw.end();
    });

    it('a wrong key is refused (535); the fifth failure disconnects and later attempts wait', async () => {
      // A loopback address of its own, so the throttle does not slow the other scenarios.
      const localAddress = '127.0.0.2';
      const wrong = (i: number) =>
        refusal(
          submit(
            { from: FROM, to: addr('w'), subject: 's', text: 't' },
            { localAddress, auth: { user: 'resend', pass: `re_wrong_${i}` } },
          ),
        );
      for (let i = 1; i <= 4; i++) expect((await wrong(i)).responseCode).toBe(535);
      expect((await wrong(5)).responseCode).toBe(421);
      const t0 = Date.now();
      expect((await wrong(6)).responseCode).toBe(421);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
      // the right key still gets through (after its wait), and clears the address
      const id = await submit({ from: FROM, to: addr('after'), subject: 's', text: 't' }, { localAddress });
      expect(id).toMatch(/^[\da-f-]{36}$/);
      // a plain 535, not 421: the address's failures were forgotten (kept, a 7th failure would
      // close the connection again, after a 2 s wait)
      expect((await wrong(7)).responseCode).toBe(535);
    });

    it('plaintext commands pipelined after STARTTLS are not executed inside TLS', async () => {
      const raw = await RawSmtp.open(port);
      await raw.command('EHLO raw.test');
      raw.write('STARTTLS\r\nMAIL FROM:<smuggled@evil.test>\r\n');
      expect(await raw.reply()).toMatch(/^220 /);
      await raw.upgrade();
      // the first reply inside TLS answers our EHLO, not the injected MAIL FROM
      expect(await raw.command('EHLO raw.test')).toMatch(/^250[- ]/);
      expect(raw.pending()).toEqual([]);
      raw.end();
    });
  });

  describe('what the message says', () => {
    it('Bcc comes from the envelope: recipients not in To/Cc are delivered and recorded as bcc', async () => {
      const [to, hidden1, hidden2, notSent] = [addr('to'), addr('bcc1'), addr('bcc2'), addr('header-only')];
      const id = await submit({
        from: FROM,
        to: [to, notSent],
        subject: 'Envelope decides',
        text: 'hi',
        envelope: { from: 'hello@acme.test', to: [to, hidden1, hidden2] },
      });
      const { data } = await stack.resend.emails.get(id);
      expect(data).toMatchObject({ to: [to], bcc: [hidden1, hidden2] });
      await stack.settled([id]);
      const copies = copiesOf(id);
      expect(copies.flatMap((c) => c.envelope.to).sort()).toEqual([to, hidden1, hidden2].sort());
      for (const c of copies) {
        expect(c.raw.toString()).not.toContain(hidden1);
        expect(c.raw.toString()).not.toContain(notSent);
      }
    });

    it('nodemailer bcc works as with any relay', async () => {
      const [to, bcc] = [addr('to'), addr('bcc')];
      const id = await submit({ from: FROM, to, bcc, subject: 'Bcc', text: 'hi' });
      const { data } = await stack.resend.emails.get(id);
      expect(data).toMatchObject({ to: [to], bcc: [bcc] });
    });

    it('the Resend-Idempotency-Key header dedupes: the same message twice is one email', async () => {
      const to = addr('idem');
      const key = `smtp-${n}-${Date.now()}`;
      const mail = {
        from: FROM,
        to,
        subject: 'Once',
        text: 'only once',
        headers: { 'Resend-Idempotency-Key': key },
      };
      const first = await submit(mail);
      const second = await submit(mail);
      expect(second).toBe(first);
      await stack.settled([first]);
      expect(copiesOf(first)).toHaveLength(1);
      // the header is Petrel's, not passed on
      expect(copiesOf(first)[0]!.parsed.headers.some((h) => h.key === 'resend-idempotency-key')).toBe(false);
      // another message under the same key is refused, as over HTTP (409 there)
      const other = await refusal(submit({ ...mail, text: 'something else' }));
      expect(other.responseCode).toBe(554);
      expect(other.response).toMatch(/idempoten/i);
    });

    it('an invalid From is refused with 553 naming the field, a message without a subject with 554', async () => {
      const to = addr('to');
      const raw = (from: string, body = 'hi') =>
        submit({
          envelope: { from: 'hello@acme.test', to: [to] },
          raw: `From: ${from}\r\nTo: ${to}\r\nSubject: s\r\n\r\n${body}\r\n`,
        });
      const badFrom = await refusal(raw('not an address'));
      expect(badFrom.responseCode).toBe(553);
      expect(badFrom.response).toMatch(/from: invalid address/);
      const noSubject = await refusal(
        submit({
          envelope: { from: 'hello@acme.test', to: [to] },
          raw: `From: ${FROM}\r\nTo: ${to}\r\n\r\nhi\r\n`,
        }),
      );
      expect(noSubject.responseCode).toBe(554);
      expect(noSubject.response).toMatch(/subject: is required/);
      const nobodyVisible = await refusal(
        submit({
          from: FROM,
          to: addr('other'),
          subject: 's',
          text: 't',
          envelope: { from: 'hello@acme.test', to: [to] },
        }),
      );
      expect(nobodyVisible.responseCode).toBe(553);
      expect(nobodyVisible.response).toMatch(/^553 [\d.]+ to: /);
    });

    it('a suppressed recipient is skipped as for POST /emails', async () => {
      const [gone, ok] = [addr('suppressed'), addr('ok')];
      const added = await stack.http('/suppressions', {
        method: 'POST',
        body: JSON.stringify({ email: gone }),
      });
      expect(added.status).toBeLessThan(300);
      const id = await submit({ from: FROM, to: [ok, gone], subject: 's', text: 't' });
      await stack.settled([id]);
      expect(copiesOf(id).flatMap((c) => c.envelope.to)).toEqual([ok]);
    });
  });

  describe('size limit (RFC 1870)', () => {
    it('advertises SIZE; a larger SIZE= is refused at MAIL FROM and a larger message after DATA, both 552', async () => {
      const s = await RawSmtp.authenticated(port, stack.key);
      expect(await s.command('EHLO raw.test')).toContain(`SIZE ${SMTP_SUBMISSION_MAX_BYTES}`);
      expect(await s.command(`MAIL FROM:<hello@acme.test> SIZE=${SMTP_SUBMISSION_MAX_BYTES + 1}`)).toMatch(
        /^552 /,
      );
      s.end();
      const to = addr('big');
      const big = await refusal(
        submit({ from: FROM, to, subject: 'big', text: 'x'.repeat(SMTP_SUBMISSION_MAX_BYTES + 1_000) }),
      );
      expect(big.responseCode).toBe(552);
    });
  });

  describe('SMTP smuggling (RFC 5321 sections 2.3.8 and 4.1.1.4; RELIABILITY R22)', () => {
    /** A raw authenticated session past MAIL FROM, RCPT TO:<to> and DATA (each accepted): the message goes next. */
    async function inData(to: string): Promise<RawSmtp> {
      const s = await RawSmtp.authenticated(port, stack.key);
      expect(await s.command('MAIL FROM:<hello@acme.test>')).toMatch(/^250 /);
      expect(await s.command(`RCPT TO:<${to}>`)).toMatch(/^250 /);
      expect(await s.command('DATA')).toMatch(/^354 /);
      return s;
    }
    const PAYLOADS: Record<string, string> = {
      '<LF>.<CR><LF>': '\n.\r\n',
      '<CR>.<CR>': '\r.\r',
      '<LF>.<LF>': '\n.\n',
      '<CR><LF>.<LF>': '\r\n.\n',
      '<LF>.<CR>': '\n.\r',
    };
    for (const [name, terminator] of Object.entries(PAYLOADS)) {
      it(`${name} inside DATA never ends the message nor starts a second one`, async () => {
        const [to, victim] = [addr('smuggle'), addr('victim')];
        const s = await inData(to);
        const smuggled =
          `MAIL FROM:<ceo@acme.test>\r\nRCPT TO:<${victim}>\r\nDATA\r\n` +
          `From: CEO <ceo@acme.test>\r\nTo: ${victim}\r\nSubject: smuggled\r\n\r\nwire the money\r\n`;
        s.write(`From: ${FROM}\r\nTo: ${to}\r\nSubject: carrier\r\n\r\nfirst${terminator}${smuggled}.\r\n`);
        const reply = await s.reply();
        // one reply for one message: refused (bare line ending), and nothing answered the smuggled commands
        expect(reply).toMatch(/^554 [\d.]+ Message contains a bare CR or LF/);
        expect(await s.command('NOOP')).toMatch(/^250 /);
        expect(s.pending()).toEqual([]);
        s.write('QUIT\r\n');
        s.end();
        await stack.drained();
        expect(stack.sink.messages.filter((m) => m.envelope.to.includes(victim))).toEqual([]);
        expect(stack.sink.messages.filter((m) => m.envelope.to.includes(to))).toEqual([]);
      });
    }

    it('bare LF in the headers is refused the same way', async () => {
      const to = addr('hdr');
      const s = await inData(to);
      s.write(`From: ${FROM}\r\nTo: ${to}\nBcc: ${addr('injected')}\r\nSubject: s\r\n\r\nhi\r\n.\r\n`);
      expect(await s.reply()).toMatch(/^554 /);
      s.end();
    });

    it('a proper message with dot-stuffed lines is one message, its dots intact', async () => {
      const to = addr('dots');
      const s = await inData(to);
      s.write(
        `From: ${FROM}\r\nTo: ${to}\r\nSubject: dots\r\n\r\nline one\r\n..\r\n..MAIL FROM:<x@y.test>\r\nend\r\n.\r\n`,
      );
      const id = idOf(await s.reply());
      s.end();
      await stack.settled([id]);
      const [copy, ...more] = copiesOf(id);
      expect(more).toEqual([]);
      expect(copy!.parsed.text).toContain('line one\n.\n.MAIL FROM:<x@y.test>\nend');
    });
  });
}

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { buildMessage, type MessageInput } from './build-message.js';
import type { SendResult } from './classify.js';
import { createSmtpSender, type SmtpSender, type SmtpSenderOptions } from './transport.js';

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  /** The client declared SMTPUTF8 (RFC 6531) in MAIL FROM. */
  smtpUtf8: boolean;
}

interface TestServer {
  url: string;
  received: Received[];
  connections: () => number;
  /** Resolves once `n` connections have closed (server side). */
  closed: (n: number) => Promise<void>;
  /**
   * Every MAIL FROM / RCPT TO line exactly as the client wrote it. smtp-server's envelope shows
   * an A-label domain as its U-label, so only the command lines tell what went on the wire;
   * smtp-server writes them to its debug log (`{ tnx: 'command' }, 'C:', line`).
   */
  envelopeCommands: string[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A real smtp-server on 127.0.0.1 with the given hooks; records accepted messages. It announces
 * SMTPUTF8 in its EHLO reply, as smtp-server does by default, unless `hideSMTPUTF8` is set.
 */
async function startServer(hooks: Partial<SMTPServerOptions> = {}): Promise<TestServer> {
  const received: Received[] = [];
  const envelopeCommands: string[] = [];
  let connections = 0;
  let closes = 0;
  const closeWaiters = new Set<() => void>();
  const ignore = (): void => undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: {
      debug(entry: { tnx?: unknown }, _label: unknown, line: unknown) {
        if (entry.tnx === 'command' && typeof line === 'string' && /^(MAIL|RCPT) /i.test(line)) {
          envelopeCommands.push(line);
        }
      },
      info: ignore,
      warn: ignore,
      error: ignore,
      trace: ignore,
      fatal: ignore,
    } as unknown as SMTPServerOptions['logger'],
    onConnect(_session, cb) {
      connections++;
      cb();
    },
    onClose() {
      closes++;
      for (const wake of closeWaiters) wake();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          smtpUtf8: session.envelope.smtpUtf8 === true,
        });
        cb();
      });
    },
    ...hooks,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    connections: () => connections,
    closed: (n) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (closes < n) return;
          closeWaiters.delete(check);
          resolve();
        };
        closeWaiters.add(check);
        check();
      }),
    envelopeCommands,
  };
}

function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

function sender(url: string, over: Partial<SmtpSenderOptions> = {}): SmtpSender {
  const s = createSmtpSender({ url, poolSize: 2, connectionTimeoutMs: 2000, socketTimeoutMs: 5000, ...over });
  cleanups.push(() => s.close());
  return s;
}

const input: MessageInput = {
  emailId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  messageIdDomain: 'petrel.test',
  date: new Date('2026-11-21T09:12:00Z'),
  from: 'Petrel Test <sender@petrel.test>',
  to: ['Ünïcødé Recipient <to@example.test>'],
  cc: ['cc@example.test'],
  bcc: ['hidden@example.test'],
  reply_to: [],
  subject: 'Integration ✓ test',
  html: `<p>Hello</p>\n.\n<p>${'long line '.repeat(30)}</p>`,
  text: 'Hello\n.\n..dots survive SMTP dot-stuffing\n',
  headers: { 'X-Entity-Ref-ID': 'int-1' },
  attachments: [{ content: Buffer.from('attached bytes').toString('base64'), filename: 'a.txt' }],
};

/** A port with nothing listening on it. */
/**
 * The first message `server` received, once its envelope is `commands` (MAIL FROM and RCPT TO as
 * sent), it went with SMTPUTF8 or not as `smtpUtf8` says, and its bytes are `raw`; and its parse.
 */
async function expectDelivered(server: TestServer, commands: string[], smtpUtf8: boolean, raw: Buffer) {
  expect(server.envelopeCommands).toEqual(commands);
  const got = server.received[0]!;
  expect(got.smtpUtf8).toBe(smtpUtf8);
  expect(got.raw.equals(raw)).toBe(true);
  return { got, parsed: await PostalMime.parse(got.raw) };
}

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('createSmtpSender against a real smtp-server', () => {
  it('delivers the built message byte for byte, Bcc only in the envelope', async () => {
    const server = await startServer();
    const results: [SendResult, number][] = [];
    const s = sender(server.url, { onResult: (r, ms) => results.push([r, ms]) });
    const msg = buildMessage(input);
    const result = await s.send(msg);
    expect(result).toMatchObject({ kind: 'sent', code: 250 });
    expect(server.received).toHaveLength(1);
    const got = server.received[0]!;
    expect(got.from).toBe('sender@petrel.test');
    expect(got.to).toEqual(['to@example.test', 'cc@example.test', 'hidden@example.test']);
    expect(got.raw.equals(msg.raw)).toBe(true);
    const parsed = await PostalMime.parse(got.raw);
    expect(parsed.subject).toBe('Integration ✓ test');
    expect(parsed.messageId).toBe('<0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@petrel.test>');
    expect(parsed.text).toBe('Hello\n.\n..dots survive SMTP dot-stuffing\n\n');
    expect(parsed.bcc).toBeUndefined();
    expect(Buffer.from(parsed.attachments[0]!.content as ArrayBuffer).toString()).toBe('attached bytes');
    expect(results).toHaveLength(1);
    expect(results[0]![0].kind).toBe('sent');
    expect(results[0]![1]).toBeGreaterThan(0);
  });

  it('reuses pooled connections for many messages', async () => {
    const server = await startServer();
    const s = sender(server.url, { poolSize: 3 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => s.send(buildMessage({ ...input, emailId: `id-${i}` }))),
    );
    expect(results.every((r) => r.kind === 'sent')).toBe(true);
    expect(server.received).toHaveLength(30);
    expect(server.connections()).toBeLessThanOrEqual(3);
  });

  it('a pooled connection the server dropped while idle: the next message goes out once, intact', async () => {
    // smtp-server closes a connection idle for socketTimeout; the pool must reconnect (or requeue
    // the message onto a fresh connection, reading its bytes again) without losing or doubling it
    const server = await startServer({ socketTimeout: 150 });
    const s = sender(server.url, { poolSize: 1 });
    const sent: Buffer[] = [];
    for (let i = 0; i < 3; i++) {
      const msg = buildMessage({ ...input, emailId: `idle-${i}` });
      sent.push(msg.raw);
      expect(await s.send(msg)).toMatchObject({ kind: 'sent' });
      // the next message goes only once the server has dropped the idle connection
      await server.closed(i + 1);
    }
    expect(server.received.map((r) => r.raw.toString())).toEqual(sent.map((b) => b.toString()));
    expect(server.connections()).toBeGreaterThanOrEqual(2);
  });

  it('451 at RCPT (greylisting) → soft_fail with the hinted delay', async () => {
    const server = await startServer({
      onRcptTo(_a, _s, cb) {
        cb(smtpError(451, '4.7.1 Greylisted, please try again in 300 seconds'));
      },
    });
    const r = await sender(server.url).send(buildMessage(input));
    expect(r).toMatchObject({ kind: 'soft_fail', code: 451, enhancedCode: '4.7.1', retryAfterMs: 300_000 });
    expect(server.received).toHaveLength(0);
  });

  it('550 at RCPT → hard_fail', async () => {
    const server = await startServer({
      onRcptTo(_a, _s, cb) {
        cb(smtpError(550, '5.1.1 No such user'));
      },
    });
    const r = await sender(server.url).send(buildMessage(input));
    expect(r).toMatchObject({ kind: 'hard_fail', code: 550, enhancedCode: '5.1.1' });
  });

  it('550 for one recipient of several → sent, that recipient listed as rejected', async () => {
    const server = await startServer({
      onRcptTo(address, _s, cb) {
        cb(address.address === 'cc@example.test' ? smtpError(550, '5.1.1 No such user') : undefined);
      },
    });
    const r = await sender(server.url).send(buildMessage(input));
    expect(r.kind).toBe('sent');
    expect(r.kind === 'sent' && r.rejected).toEqual([
      expect.objectContaining({ address: 'cc@example.test', code: 550, permanent: true }),
    ]);
    expect(server.received[0]?.to).toEqual(['to@example.test', 'hidden@example.test']);
  });

  it('552 at the end of DATA → hard_fail', async () => {
    const server = await startServer({
      onData(stream, _s, cb) {
        stream.resume();
        stream.on('end', () => cb(smtpError(552, '5.3.4 Message too big for system')));
      },
    });
    const r = await sender(server.url).send(buildMessage(input));
    expect(r).toMatchObject({ kind: 'hard_fail', code: 552, enhancedCode: '5.3.4' });
  });

  it('a 451 after DATA keeps the pooled connection; a 421 closes it and the next message opens one', async () => {
    // RFC 5321 section 4.2.5: a 4yz to the final dot refuses this transaction only, the session
    // goes on (after RSET); section 3.8: a 421 means the server closes the channel. So a retried
    // 451 costs no reconnect, and a 421 costs exactly one.
    const answers = [451, 250, 421, 250];
    const server = await startServer({
      onData(stream, _s, cb) {
        stream.resume();
        stream.on('end', () => {
          const code = answers.shift();
          if (code === 250) cb();
          else cb(smtpError(code!, code === 421 ? '4.3.2 Try again later' : '4.3.0 Local error'));
        });
      },
    });
    const s = sender(server.url, { poolSize: 1 });
    const send = (i: number) => s.send(buildMessage({ ...input, emailId: `4xx-${i}` }));
    expect(await send(0)).toMatchObject({ kind: 'soft_fail', code: 451 });
    expect(await send(1)).toMatchObject({ kind: 'sent' });
    expect(server.connections()).toBe(1);
    expect(await send(2)).toMatchObject({ kind: 'soft_fail', code: 421 });
    expect(await send(3)).toMatchObject({ kind: 'sent' });
    expect(server.connections()).toBe(2);
  });

  it('421 at connect → soft_fail', async () => {
    const server = await startServer({
      onConnect(_s, cb) {
        cb(smtpError(421, '4.7.0 Too many connections, try again in 2 minutes'));
      },
    });
    const r = await sender(server.url).send(buildMessage(input));
    expect(r).toMatchObject({ kind: 'soft_fail', code: 421, retryAfterMs: 120_000 });
  });

  it('connection refused → soft_fail', async () => {
    const port = await closedPort();
    const s = sender(`smtp://127.0.0.1:${port}`);
    const r = await s.send(buildMessage(input));
    expect(r.kind).toBe('soft_fail');
    expect(r.kind === 'soft_fail' && r.detail).toMatch(/ECONNREFUSED/);
    expect(await s.verify()).toBe(false);
  });

  // The durations below are bounded halfway to what the send would take if the timeout under test
  // were not applied (nodemailer's own 30 s greeting timeout, the sender's other timeouts), not a
  // second above it: a loaded machine is slow, but not by seconds.
  it('a server that never greets → soft_fail at the greeting timeout, not at a default', async () => {
    const sockets = new Set<net.Socket>();
    const mute = net.createServer((sock) => {
      sockets.add(sock);
      sock.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((resolve) => mute.close(() => resolve()));
    });
    const { port } = mute.address() as AddressInfo;
    const s = sender(`smtp://127.0.0.1:${port}`, {
      connectionTimeoutMs: 500,
      greetingTimeoutMs: 500,
      socketTimeoutMs: 500,
    });
    const started = Date.now();
    const r = await s.send(buildMessage(input));
    const elapsed = Date.now() - started;
    expect(r.kind).toBe('soft_fail');
    expect(r.kind === 'soft_fail' && r.detail).toMatch(/ETIMEDOUT|Greeting/i);
    expect(elapsed).toBeLessThan(15_000); // nodemailer's default greeting timeout: 30 s
  });

  it('a server stalling after the final dot → soft_fail at the socket timeout', async () => {
    const server = await startServer({
      onData(stream) {
        stream.resume(); // read everything, never answer
      },
    });
    const s = sender(server.url, { socketTimeoutMs: 700, connectionTimeoutMs: 10_000 });
    const started = Date.now();
    const r = await s.send(buildMessage(input));
    expect(r.kind).toBe('soft_fail');
    expect(Date.now() - started).toBeLessThan(5_000); // the other timeout here: 10 s
  });

  it('sendTimeoutMs bounds a send that the socket timeout would let run on', async () => {
    const server = await startServer({
      onData(stream) {
        stream.resume();
      },
    });
    const s = sender(server.url, { socketTimeoutMs: 30_000, sendTimeoutMs: 600 });
    const started = Date.now();
    const r = await s.send(buildMessage(input));
    expect(r.kind).toBe('soft_fail');
    expect(r.kind === 'soft_fail' && r.detail).toMatch(/EABORT|abort/i);
    expect(Date.now() - started).toBeLessThan(15_000); // the socket timeout here: 30 s
  });

  it('IDN domains travel as A-labels in MAIL FROM, RCPT TO and the headers, SMTPUTF8 or not', async () => {
    for (const hideSMTPUTF8 of [false, true]) {
      const server = await startServer({ hideSMTPUTF8 });
      const msg = buildMessage({
        ...input,
        from: 'Büro <sender@bücher.example>',
        to: ['Name <user@bücher.example>'],
        cc: ['cc@münchen.example'],
        bcc: [],
        reply_to: ['reply@bücher.example'],
      });
      expect(await sender(server.url).send(msg)).toMatchObject({ kind: 'sent', code: 250 });
      const { got, parsed } = await expectDelivered(
        server,
        [
          'MAIL FROM:<sender@xn--bcher-kva.example>',
          'RCPT TO:<user@xn--bcher-kva.example>',
          'RCPT TO:<cc@xn--mnchen-3ya.example>',
        ],
        false,
        msg.raw,
      );
      expect(got.raw.every((b) => b < 0x80)).toBe(true);
      expect(parsed.from).toEqual({ name: 'Büro', address: 'sender@xn--bcher-kva.example' });
      expect(parsed.to).toEqual([{ name: 'Name', address: 'user@xn--bcher-kva.example' }]);
      expect(parsed.cc).toEqual([{ name: '', address: 'cc@xn--mnchen-3ya.example' }]);
      expect(parsed.replyTo).toEqual([{ name: '', address: 'reply@xn--bcher-kva.example' }]);
    }
  });

  it('a UTF-8 local part goes with SMTPUTF8 and UTF-8 headers when the server offers it', async () => {
    const server = await startServer();
    const msg = buildMessage({
      ...input,
      from: 'José <josé@petrel.test>',
      to: ['Zoë <zoë@bücher.example>', 'to@example.test'],
      cc: [],
      bcc: [],
    });
    const r = await sender(server.url).send(msg);
    expect(r).toMatchObject({ kind: 'sent', code: 250 });
    expect(r.kind === 'sent' && r.rejected).toBeUndefined();
    const { parsed } = await expectDelivered(
      server,
      [
        'MAIL FROM:<josé@petrel.test> SMTPUTF8 BODY=8BITMIME',
        'RCPT TO:<zoë@xn--bcher-kva.example>',
        'RCPT TO:<to@example.test>',
      ],
      true,
      msg.raw,
    );
    expect(parsed.from).toEqual({ name: 'José', address: 'josé@petrel.test' });
    expect(parsed.to?.map((a) => a.address)).toEqual(['zoë@xn--bcher-kva.example', 'to@example.test']);
  });

  it('without SMTPUTF8: a UTF-8 recipient fails with the reason, the others get an ASCII message', async () => {
    const server = await startServer({ hideSMTPUTF8: true });
    const msg = buildMessage({
      ...input,
      to: ['José <josé@example.test>', 'to@example.test'],
      cc: ['cc@example.test'],
      bcc: ['zoë@example.test'],
    });
    const r = await sender(server.url).send(msg);
    expect(r).toEqual({
      kind: 'sent',
      code: 250,
      response: expect.stringMatching(/^250 /),
      rejected: ['josé@example.test', 'zoë@example.test'].map((address) => ({
        address,
        code: 553,
        enhancedCode: '5.6.7',
        permanent: true,
        detail: `recipient ${address} needs SMTPUTF8, which the receiving server does not offer`,
      })),
    });
    const { got, parsed } = await expectDelivered(
      server,
      ['MAIL FROM:<sender@petrel.test>', 'RCPT TO:<to@example.test>', 'RCPT TO:<cc@example.test>'],
      false,
      msg.asciiRaw!,
    );
    expect(got.to).toEqual(['to@example.test', 'cc@example.test']);
    expect(got.raw.every((b) => b < 0x80)).toBe(true);
    expect(parsed.to).toEqual([
      { name: 'José <josé@example.test>', group: [] },
      { name: '', address: 'to@example.test' },
    ]);
    expect(parsed.cc).toEqual([{ name: '', address: 'cc@example.test' }]);
    expect(parsed.subject).toBe('Integration ✓ test');
  });

  it('without SMTPUTF8: a UTF-8 sender is a permanent failure, and nothing reaches the server', async () => {
    const server = await startServer({ hideSMTPUTF8: true });
    const results: SendResult[] = [];
    const s = sender(server.url, { poolSize: 1, onResult: (res) => results.push(res) });
    const r = await s.send(buildMessage({ ...input, from: 'José <josé@petrel.test>' }));
    const failure = {
      kind: 'hard_fail',
      code: 553,
      enhancedCode: '5.6.7',
      command: 'MAIL FROM',
      detail: 'sender josé@petrel.test needs SMTPUTF8, which the receiving server does not offer',
    };
    expect(r).toEqual(failure);
    expect(results).toEqual([failure]);
    // the session stays usable: the next message goes over the same connection
    expect(await s.send(buildMessage(input))).toMatchObject({ kind: 'sent' });
    expect(server.envelopeCommands.filter((c) => c.startsWith('MAIL'))).toEqual([
      'MAIL FROM:<sender@petrel.test>',
    ]);
    expect(server.received).toHaveLength(1);
    expect(server.connections()).toBe(1);
  });

  it('without SMTPUTF8: only UTF-8 recipients → a permanent failure at RCPT TO', async () => {
    const server = await startServer({ hideSMTPUTF8: true });
    const r = await sender(server.url).send(
      buildMessage({ ...input, to: ['josé@example.test'], cc: [], bcc: [] }),
    );
    expect(r).toEqual({
      kind: 'hard_fail',
      code: 553,
      enhancedCode: '5.6.7',
      command: 'RCPT TO',
      detail: 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
    });
    expect(server.envelopeCommands).toEqual([]);
    expect(server.received).toHaveLength(0);
  });

  it('verify() is true for a working server; close() lets in-flight sends finish, then refuses', async () => {
    const server = await startServer();
    const s = createSmtpSender({
      url: server.url,
      poolSize: 1,
      connectionTimeoutMs: 2000,
      socketTimeoutMs: 5000,
    });
    expect(await s.verify()).toBe(true);
    const inFlight = s.send(buildMessage(input));
    await s.close();
    expect((await inFlight).kind).toBe('sent');
    expect(await s.send(buildMessage(input))).toMatchObject({
      kind: 'soft_fail',
      detail: 'SMTP sender is closed',
    });
  });
});

describe('slow answers and the overflow connections', () => {
  /**
   * A server that holds the DATA answer of mail to `slow@example.test` until the test releases it,
   * and answers everything else at once.
   */
  async function holdingServer(): Promise<{ server: TestServer; held: Promise<void>; release: () => void }> {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let heldNow!: () => void;
    const held = new Promise<void>((r) => (heldNow = r));
    const server = await startServer({
      onData(stream, session, cb) {
        stream.resume();
        stream.on('end', () => {
          const to = session.envelope.rcptTo.map((r) => r.address);
          server.received.push({ from: '', to, raw: Buffer.alloc(0), smtpUtf8: false });
          if (to.includes('slow@example.test')) {
            heldNow();
            void gate.then(() => cb());
          } else cb();
        });
      },
    });
    return { server, held, release };
  }
  const to = (address: string) => buildMessage({ ...input, to: [address], cc: [], bcc: [] });

  it('a held answer gets an overflow connection for the next send once it counts as slow', async () => {
    const { server, held, release } = await holdingServer();
    const s = sender(server.url, { poolSize: 1, overflowConnections: 1, slowAnswerMs: 50 });
    const slow = s.send(to('slow@example.test'));
    await held;
    // the documented threshold: a send on its session for slowAnswerMs counts as slow
    await new Promise((r) => setTimeout(r, 100));
    // the pool's one connection is held: only the overflow can carry this one while it is
    expect((await s.send(to('fast@example.test'))).kind).toBe('sent');
    expect(server.connections()).toBe(2);
    release();
    expect((await slow).kind).toBe('sent');
  });

  it('without an overflow, the next send waits for the held answer', async () => {
    const { server, held, release } = await holdingServer();
    const s = sender(server.url, { poolSize: 1, slowAnswerMs: 50 });
    const slow = s.send(to('slow@example.test'));
    await held;
    await new Promise((r) => setTimeout(r, 100));
    let fastDone = false;
    const fast = s.send(to('fast@example.test')).then((r) => ((fastDone = true), r));
    // the fast message cannot have reached the server: its only connection is held
    await new Promise((r) => setTimeout(r, 200));
    expect(fastDone).toBe(false);
    expect(server.received.map((m) => m.to[0])).toEqual(['slow@example.test']);
    release();
    expect((await slow).kind).toBe('sent');
    expect((await fast).kind).toBe('sent');
    expect(server.connections()).toBe(1);
  });

  it('no overflow connection while the pool has room or nothing is slow', async () => {
    const server = await startServer();
    const s = sender(server.url, { poolSize: 2, overflowConnections: 4, slowAnswerMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.send(to(`r${i}@example.test`))));
    expect(results.every((r) => r.kind === 'sent')).toBe(true);
    expect(server.connections()).toBeLessThanOrEqual(2);
  });
});

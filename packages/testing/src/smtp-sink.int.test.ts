import { connect } from 'node:net';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';
import { stopAfterEach } from './stop-after-each.js';
import { waitUntil } from './wait.js';

const sinkWith = stopAfterEach(startSmtpSink);

function transportTo(sink: SmtpSink, extra: Record<string, unknown> = {}) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    ignoreTLS: true,
    ...extra,
  });
}

const send = (sink: SmtpSink, to: string, extra: Record<string, unknown> = {}) =>
  transportTo(sink, extra).sendMail({
    from: 'Sender <sender@petrel.test>',
    to,
    subject: `to ${to}`,
    text: 'hi',
  });

describe('startSmtpSink', () => {
  it('records and parses a message sent with nodemailer', async () => {
    const sink = await sinkWith();
    expect(sink.url).toBe(`smtp://127.0.0.1:${sink.port}`);
    const info = await transportTo(sink).sendMail({
      from: 'Petrel <hello@petrel.test>',
      to: ['a@example.test', 'B <b@example.test>'],
      cc: 'c@example.test',
      bcc: 'hidden@example.test',
      subject: 'Grüße ✓',
      text: 'plain body',
      html: '<p>html body</p>',
      headers: { 'X-Entity-Ref-ID': 'ref-1' },
      attachments: [{ filename: 'note.txt', content: 'attached' }],
    });

    const [message] = await sink.waitFor(1);
    const to = ['a@example.test', 'b@example.test', 'c@example.test', 'hidden@example.test'];
    expect(message?.envelope).toEqual({
      from: 'hello@petrel.test',
      to,
      smtpUtf8: false,
      wire: { from: 'hello@petrel.test', to },
      // the client's address and whether the session used TLS (sending pools, MTA-STS)
      peer: '127.0.0.1',
      secure: false,
    });
    expect(message?.parsed.subject).toBe('Grüße ✓');
    expect(message?.parsed.messageId).toBe(info.messageId);
    expect(message?.parsed.from).toMatchObject({ name: 'Petrel', address: 'hello@petrel.test' });
    expect(message?.parsed.to?.map((a) => a.address)).toEqual(['a@example.test', 'b@example.test']);
    expect(message?.parsed.cc?.map((a) => a.address)).toEqual(['c@example.test']);
    expect(message?.parsed.text?.trim()).toBe('plain body');
    expect(message?.parsed.html).toContain('<p>html body</p>');
    expect(message?.parsed.headers).toContainEqual(
      expect.objectContaining({ key: 'x-entity-ref-id', value: 'ref-1' }),
    );
    expect(message?.parsed.attachments.map((a) => a.filename)).toEqual(['note.txt']);
    expect(message?.raw.toString()).toContain('Subject:');
    expect(sink.byMessageId(info.messageId)).toHaveLength(1);
    expect(sink.byMessageId(info.messageId.replace(/[<>]/g, ''))).toHaveLength(1);

    sink.clear();
    expect(sink.messages).toHaveLength(0);
  });

  it('records the envelope as written on the wire: A-labels stay A-labels, SMTPUTF8 is noted', async () => {
    const sink = await sinkWith({ plan: { 'no.test': [{ at: 'rcpt', code: 550 }] } });
    await transportTo(sink).sendMail({
      envelope: {
        from: 'sender@xn--bcher-kva.example',
        to: ['user@xn--bcher-kva.example', 'x@no.test', 'josé@example.test'],
      },
      raw: 'Subject: idn\r\n\r\nhi\r\n',
    });
    const [message] = await sink.waitFor(1);
    // smtp-server's own envelope shows the domain as a U-label
    expect(message?.envelope).toMatchObject({
      from: 'sender@bücher.example',
      to: ['user@bücher.example', 'josé@example.test'],
      smtpUtf8: true,
    });
    expect(message?.envelope.wire).toEqual({
      from: 'sender@xn--bcher-kva.example',
      to: ['user@xn--bcher-kva.example', 'josé@example.test'],
    });
  });

  it('can hide SMTPUTF8 from its EHLO reply', async () => {
    const offered = await sinkWith();
    const hidden = await sinkWith({ smtpUtf8: false });
    // nodemailer reports the server's EHLO keywords with every message it sends
    const ehlo = async (sink: SmtpSink) =>
      ((await send(sink, 'b@example.test')) as { ehlo?: string[] }).ehlo ?? [];
    expect(await ehlo(offered)).toContain('SMTPUTF8');
    expect(await ehlo(hidden)).not.toContain('SMTPUTF8');
  });

  it('plays the plan per recipient attempt: 451, 451, then accept; 550; 552 at DATA', async () => {
    const sink = await sinkWith({
      plan: {
        'soft.test': [
          { at: 'rcpt', code: 451, message: '4.7.1 try again later' },
          { at: 'rcpt', code: 451 },
          'accept',
        ],
        'hard.test': [{ at: 'rcpt', code: 550 }],
        'dataerr.test': [{ at: 'data', code: 552 }],
      },
    });

    await expect(send(sink, 'x@soft.test')).rejects.toMatchObject({
      responseCode: 451,
      response: expect.stringContaining('4.7.1 try again later'),
    });
    await expect(send(sink, 'x@soft.test')).rejects.toMatchObject({ responseCode: 451 });
    await send(sink, 'x@soft.test');
    await send(sink, 'x@soft.test');
    expect(sink.attemptsFor('x@soft.test')).toBe(4);
    // Attempts are counted per recipient: another address at the same domain starts over.
    await expect(send(sink, 'y@soft.test')).rejects.toMatchObject({ responseCode: 451 });

    for (let i = 0; i < 3; i += 1)
      await expect(send(sink, 'x@hard.test')).rejects.toMatchObject({ responseCode: 550 });
    await expect(send(sink, 'x@dataerr.test')).rejects.toMatchObject({ responseCode: 552 });
    await send(sink, 'x@unplanned.test');

    expect(sink.messages.map((m) => m.envelope.to)).toEqual([
      ['x@soft.test'],
      ['x@soft.test'],
      ['x@unplanned.test'],
    ]);
    expect(sink.attempts.filter((a) => a.address === 'x@hard.test').map((a) => a.attempt)).toEqual([1, 2, 3]);
  });

  it('refuses connections with 421, by count and by recipient plan', async () => {
    const sink = await sinkWith({ plan: { 'flaky.test': [{ at: 'connect', code: 421 }, 'accept'] } });
    sink.rejectConnections(1);
    await expect(send(sink, 'a@example.test')).rejects.toMatchObject({ responseCode: 421 });
    await send(sink, 'a@example.test');

    await expect(send(sink, 'a@flaky.test')).rejects.toMatchObject({ responseCode: 421 });
    await send(sink, 'a@flaky.test');
    expect(sink.messages).toHaveLength(2);
  });

  it('can stall after the final dot, and stop() cuts the stalled session', async () => {
    const sink = await sinkWith({ plan: { 'stall.test': [{ at: 'data', stall: true }] } });
    await expect(send(sink, 'a@stall.test', { socketTimeout: 500 })).rejects.toMatchObject({
      code: 'ETIMEDOUT',
    });
    // a client that would wait for the 250 longer than the test may run
    const pending = send(sink, 'b@stall.test', { socketTimeout: 120_000 }).catch((err: unknown) => err);
    await waitUntil(() => sink.attemptsFor('b@stall.test') === 1, { message: 'the RCPT of b@stall.test' });
    await sink.stop();
    // the session was cut (nodemailer: "Connection closed unexpectedly"), not left to time out:
    // stop() closed it rather than waiting for it
    expect(await pending).toMatchObject({ code: 'ECONNECTION' });
  });

  it("greets after smtp-server's fixed early-talker delay (~100 ms), without a reverse lookup", async () => {
    const sink = await sinkWith();
    const t0 = Date.now();
    const replies: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const socket = connect(sink.port, '127.0.0.1');
      socket.on('data', (chunk) => {
        replies.push(chunk.toString());
        if (replies.length === 1) socket.write('EHLO client.test\r\n');
        else {
          socket.destroy();
          resolve();
        }
      });
      socket.once('error', reject);
    });
    expect(replies[0]).toMatch(/^220 sink\.petrel\.test ESMTP Petrel test sink/);
    // smtp-server names the client by its reverse lookup when it makes one, and waits for it up
    // to 1.5 s before greeting; the sink turns it off: the client is its bare address
    expect(replies[1]).toMatch(/^250-sink\.petrel\.test Nice to meet you, \[127\.0\.0\.1\]/);
    // and the greeting did not wait out a lookup's 1.5 s timeout (100 ms + 1.5 s): the bound is
    // 15 times the delay it expects
    expect(Date.now() - t0).toBeLessThan(1_500);
  });
});

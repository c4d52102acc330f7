import { describe, expect, it } from 'vitest';
import { PetrelError } from '@petrel/contracts';
import { formatMailbox, submissionRequest, type SubmittedMessage } from './submission.js';
import { acceptedReply, refusalReply, tooLargeReply } from './submission-replies.js';
import { BareLineEndingScanner } from './submission-data.js';

const box = (address: string, name = '') => ({ name, address });
const message = (over: Partial<SubmittedMessage> = {}): SubmittedMessage => ({
  headers: [],
  from: box('hello@acme.test', 'Acme'),
  to: [box('ada@example.test', 'Ada')],
  subject: 'Hi',
  text: 'hello',
  attachments: [],
  ...over,
});

describe('submissionRequest: recipients from the envelope', () => {
  it('keeps To/Cc addresses that are envelope recipients; every other envelope recipient is a bcc', () => {
    const { body } = submissionRequest(
      message({
        to: [box('ada@example.test', 'Ada'), box('not-sent@example.test')],
        cc: [box('Bob@Example.test')],
      }),
      { rcptTo: ['ada@example.test', 'bob@example.test', 'hidden@example.test', 'HIDDEN@example.test'] },
    );
    expect(body).toMatchObject({
      from: 'Acme <hello@acme.test>',
      to: ['Ada <ada@example.test>'],
      cc: ['Bob@Example.test'],
      bcc: ['hidden@example.test'],
    });
  });

  it('matches IDN domains in either form and flattens groups', () => {
    const { body } = submissionRequest(
      message({ to: [{ name: 'team', group: [box('a@bücher.example'), box('b@example.test')] }] }),
      { rcptTo: ['a@xn--bcher-kva.example'] },
    );
    expect(body.to).toEqual(['a@bücher.example']);
    expect(body.bcc).toBeUndefined();
  });

  it('refuses a message whose To names no envelope recipient (all would be bcc)', () => {
    expect(() =>
      submissionRequest(message({ to: [{ name: 'undisclosed-recipients', group: [] }] }), {
        rcptTo: ['x@example.test'],
      }),
    ).toThrow(/^to: no address of the To header is an envelope recipient/);
  });
});

describe('submissionRequest: headers and content', () => {
  it('passes custom headers, drops owned, trace and MIME ones, and takes the idempotency key out', () => {
    const { body, idempotencyKey } = submissionRequest(
      message({
        headers: [
          { key: 'received', value: 'from a by b' },
          { key: 'dkim-signature', value: 'v=1' },
          { key: 'message-id', value: '<x@y>' },
          { key: 'date', value: 'Mon, 1 Jan 2024 00:00:00 +0000' },
          { key: 'x-entity-ref-id', originalKey: 'X-Entity-Ref-ID', value: 'order-1' },
          { key: 'x-entity-ref-id', originalKey: 'X-Entity-Ref-ID', value: 'second' },
          { key: 'list-unsubscribe', originalKey: 'List-Unsubscribe', value: '<https://u.test/1>' },
          { key: 'resend-idempotency-key', originalKey: 'Resend-Idempotency-Key', value: ' order-1 ' },
          { key: 'content-type', value: 'multipart/mixed' },
        ],
      }),
      { rcptTo: ['ada@example.test'] },
    );
    expect(body.headers).toEqual({ 'X-Entity-Ref-ID': 'order-1', 'List-Unsubscribe': '<https://u.test/1>' });
    expect(idempotencyKey).toBe('order-1');
  });

  it('maps subject, html, text, reply-to and attachments (content id for inline parts only)', () => {
    const { body } = submissionRequest(
      message({
        html: '<p>hi</p>',
        replyTo: [box('help@acme.test', 'Help, Desk')],
        attachments: [
          {
            filename: 'a.pdf',
            mimeType: 'application/pdf',
            disposition: 'attachment',
            content: 'UERG',
            contentId: '<c1>',
          },
          {
            filename: null,
            mimeType: 'image/png',
            disposition: 'inline',
            content: 'iVBO',
            contentId: '<logo@acme>',
          },
        ],
      }),
      { rcptTo: ['ada@example.test'] },
    );
    expect(body).toMatchObject({
      subject: 'Hi',
      html: '<p>hi</p>',
      text: 'hello',
      reply_to: ['"Help, Desk" <help@acme.test>'],
      attachments: [
        { content: 'UERG', filename: 'a.pdf', content_type: 'application/pdf' },
        { content: 'iVBO', content_type: 'image/png', content_id: 'logo@acme' },
      ],
    });
  });

  it('leaves out what the message does not have, for validation to name', () => {
    const { body } = submissionRequest(message({ from: undefined, subject: undefined }), {
      rcptTo: ['ada@example.test'],
    });
    expect(body).not.toHaveProperty('from');
    expect(body).not.toHaveProperty('subject');
    const bad = submissionRequest(message({ from: undefined, headers: [{ key: 'from', value: 'nobody' }] }), {
      rcptTo: ['ada@example.test'],
    });
    expect(bad.body.from).toBe('nobody');
  });

  it('is deterministic: the same message and envelope give the same body (idempotent retries)', () => {
    const env = { rcptTo: ['ada@example.test', 'b@example.test'] };
    expect(submissionRequest(message(), env)).toEqual(submissionRequest(message(), env));
  });
});

describe('formatMailbox', () => {
  it.each([
    [box('a@b.test'), 'a@b.test'],
    [box('a@b.test', 'Ada Lovelace'), 'Ada Lovelace <a@b.test>'],
    [box('a@b.test', 'Lovelace, Ada'), '"Lovelace, Ada" <a@b.test>'],
    [box('a@b.test', 'say "hi"'), '"say \\"hi\\"" <a@b.test>'],
    [box('a@b.test', '  '), 'a@b.test'],
  ])('%o → %s', (m, out) => expect(formatMailbox(m)).toBe(out));
});

describe('SMTP replies', () => {
  it('250 carries the id', () => {
    expect(acceptedReply('id-1', false)).toEqual({ code: 250, message: 'OK id-1' });
    expect(acceptedReply('id-1', true).message).toMatch(/^OK id-1 \(already accepted/);
  });
  it.each([
    [new PetrelError('validation_error', 'from: invalid address (x)'), 553],
    [new PetrelError('validation_error', 'bcc[2]: invalid address (x)'), 553],
    [new PetrelError('validation_error', 'subject: is required'), 554],
    [new PetrelError('validation_error', 'from: this API key may only send from … not b.test', 403), 553],
    [new PetrelError('validation_error', 'headers.Sender: this API key may only send from …', 403), 550],
    [new PetrelError('validation_error', 'The b.test domain is not verified. …', 403), 550],
    [new PetrelError('invalid_attachment', 'attachments[0]: bad'), 554],
    [new PetrelError('invalid_idempotent_request', 'key reused'), 554],
    [new PetrelError('concurrent_idempotent_requests', 'in flight'), 451],
    [new PetrelError('rate_limit_exceeded', 'slow down'), 451],
    [new PetrelError('internal_server_error', 'boom'), 451],
    [new Error('ECONNREFUSED'), 451],
  ])('%s → %i', (err, code) => expect(refusalReply(err).code).toBe(code));
  it('keeps the validation message for the client, hides internal ones', () => {
    expect(refusalReply(new PetrelError('validation_error', 'subject: is required')).message).toBe(
      'subject: is required',
    );
    expect(refusalReply(new Error('secret detail')).message).not.toContain('secret');
    expect(tooLargeReply(10).code).toBe(552);
  });
});

describe('BareLineEndingScanner', () => {
  const scan = (...chunks: string[]) => {
    const s = new BareLineEndingScanner();
    for (const c of chunks) s.push(Buffer.from(c, 'latin1'));
    return s.result();
  };
  it.each([
    ['a\r\nb\r\n', undefined],
    ['a\n.\r\nb\r\n', 'LF'],
    ['a\r.\rb\r\n', 'CR'],
    ['a\n.\nb', 'LF'],
    ['a\r\n.\nb', 'LF'],
    ['ab\r', 'CR'],
  ])('%j → %s', (data, found) => expect(scan(data)).toBe(found));
  it('sees a CRLF split across chunks as one line ending, and a bare one across chunks as bare', () => {
    expect(scan('a\r', '\nb\r\n')).toBeUndefined();
    expect(scan('a\r', 'b\r\n')).toBe('CR');
    expect(scan('a', '\nb')).toBe('LF');
  });
  it('reports the first bare line ending, wherever the chunks split the data', () => {
    // the definition, byte by byte: a CR not followed by LF, an LF not preceded by CR
    const reference = (data: Uint8Array): 'CR' | 'LF' | undefined => {
      for (let i = 0; i < data.length; i++) {
        if (data[i] === 0x0d && data[i + 1] !== 0x0a) return 'CR';
        if (data[i] === 0x0a && data[i - 1] !== 0x0d) return 'LF';
      }
      return undefined;
    };
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    // mostly CRLF, dots and text; a bare CR or LF now and then
    const tokens = [[0x0d, 0x0a], [0x0d, 0x0a], [0x2e], [0x61], [0x61], [0x61], [0x61], [0x0d], [0x0a]];
    const outcomes = new Set<string | undefined>();
    for (let round = 0; round < 2000; round++) {
      const data = Uint8Array.from(Array.from({ length: 1 + random(8) }, () => tokens[random(9)]!).flat());
      const s = new BareLineEndingScanner();
      for (let at = 0; at < data.length;) {
        const next = at + 1 + random(data.length - at);
        s.push(data.subarray(at, next));
        at = next;
      }
      expect(s.result(), JSON.stringify([...data])).toBe(reference(data));
      outcomes.add(s.result());
    }
    expect(outcomes).toEqual(new Set(['CR', 'LF', undefined]));
  });
});

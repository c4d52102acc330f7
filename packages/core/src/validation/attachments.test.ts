import { LIMITS } from '@petrel/contracts';
import { describe, expect, it } from 'vitest';
import { base64DecodedLength } from './attachments.js';
import { validateEmail } from './validate-email.js';

const nowMs = Date.parse('2026-11-21T10:00:00.000Z');
const send = (attachments: unknown) =>
  validateEmail(
    { from: 'a@example.com', to: 'b@example.com', subject: 'S', html: '<p>x</p>', attachments },
    { nowMs, context: 'single' },
  );

function readAttachments(value: unknown) {
  const r = send(value);
  if (!r.ok) throw new Error(`expected acceptance, got: ${r.message}`);
  return r.email.attachments;
}

function refuse(value: unknown): string {
  const r = send(value);
  if (r.ok) throw new Error('expected a refusal');
  return r.message;
}

describe('base64DecodedLength', () => {
  it.each([
    ['', 0],
    ['aGk=', 2],
    ['aGk', 2],
    ['aGVsbG8gd29ybGQ=', 11],
    ['aGVs\r\nbG8g\nd29y bGQ=', 11],
    ['-_-_', 3],
  ])('%j decodes to %i bytes', (text, bytes) => {
    expect(base64DecodedLength(text)).toBe(bytes);
    if (!/[\s\-_]/.test(text)) expect(Buffer.from(text, 'base64')).toHaveLength(bytes);
  });

  it.each(['a', 'aGk==', 'aG=k', 'a=Gk', 'aGk!', 'aGk===', 'aGVsbG8=x', 'é'])('refuses %j', (text) => {
    expect(base64DecodedLength(text)).toBe(-1);
  });
});

describe('attachments', () => {
  it('keeps content attachments and optional metadata', () => {
    expect(
      readAttachments([
        { content: 'aGk=', filename: 'hi.txt', content_type: 'text/plain', content_id: 'logo' },
      ]),
    ).toEqual([{ content: 'aGk=', filename: 'hi.txt', content_type: 'text/plain', content_id: 'logo' }]);
  });

  it('keeps a path attachment unfetched with content ""', () => {
    expect(readAttachments([{ path: 'https://cdn.example.com/a.pdf', filename: 'a.pdf' }])).toEqual([
      { content: '', path: 'https://cdn.example.com/a.pdf', filename: 'a.pdf' },
    ]);
    expect(readAttachments([{ content: '', path: 'http://cdn.example.com/a' }])[0]?.path).toBe(
      'http://cdn.example.com/a',
    );
  });

  it('refuses an attachment without a source, or with both', () => {
    expect(refuse([{ filename: 'a.txt' }])).toBe('attachments[0]: content or path is required');
    expect(refuse([{ content: '' }])).toBe('attachments[0]: content or path is required');
    expect(refuse([{ content: 'aGk=', path: 'https://x.example/a' }])).toBe(
      'attachments[0]: give either content or path, not both',
    );
  });

  it('refuses content that is not base64 and paths that are not http(s) URLs', () => {
    expect(refuse([{ content: 'not base64!' }])).toBe('attachments[0].content: must be base64-encoded');
    for (const path of [
      'file:///etc/passwd',
      'ftp://x.example/a',
      'cdn.example.com/a',
      'https://x.example/a b',
      'http://x.example/\r\nX',
    ]) {
      expect(refuse([{ path }])).toBe('attachments[0].path: must be an http or https URL');
    }
  });

  it('refuses bad metadata and shapes', () => {
    expect(refuse([{ content: 'aGk=', filename: '' }])).toBe('attachments[0].filename: must not be empty');
    expect(refuse([{ content: 'aGk=', filename: 3 }])).toBe('attachments[0].filename: must be a string');
    expect(refuse([{ content: 'aGk=', contentType: 'text/plain' }])).toBe(
      'attachments[0]: unknown field `contentType` (did you mean `content_type`?)',
    );
    expect(refuse({ content: 'aGk=' })).toBe('attachments: must be an array');
    expect(refuse(['aGk='])).toBe('attachments[0]: must be an object');
  });

  it(`accepts ${LIMITS.attachmentsTotalBytes} decoded bytes in total and refuses one byte more`, () => {
    // 40 MiB = 3 * 13981013 + 1 bytes: split over two attachments.
    const bytes = LIMITS.attachmentsTotalBytes;
    const big = 'A'.repeat(Math.floor(bytes / 3) * 4); // decodes to floor(bytes / 3) * 3 bytes
    const rest = bytes - Math.floor(bytes / 3) * 3; // 1
    const small = Buffer.alloc(rest).toString('base64');
    expect(readAttachments([{ content: big }, { content: small }])).toHaveLength(2);
    const tooMuch = Buffer.alloc(rest + 1).toString('base64');
    expect(refuse([{ content: big }, { content: tooMuch }])).toBe(
      'attachments: total attachment size must be at most 40 MB',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { PetrelError } from '@petrel/contracts';
import { signToken } from '../audience/signed-token.js';
import { signDownloadToken } from '../inbound/download-token.js';
import { SHARE_MAX_MS, shareExpiry, shareUrl, signShareToken, verifyShareToken } from './email-share.js';
import { findSentAttachment, sentAttachmentId, sentAttachments } from './sent-attachments.js';

const SECRET = 'k'.repeat(32);
const NOW = Date.parse('2026-01-01T00:00:00Z');
const claims = { teamId: 't1', emailId: 'e1', kind: 'sent' as const, expiresAt: NOW / 1000 + 60 };

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    if (err instanceof PetrelError) return `${err.statusCode} ${err.message}`;
    throw err;
  }
  return 'accepted';
};

describe('shareExpiry', () => {
  it('defaults to 48 hours and reads Resend-style durations', () => {
    expect(shareExpiry(undefined, NOW)).toBe((NOW + SHARE_MAX_MS) / 1000);
    expect(shareExpiry('10m', NOW)).toBe(NOW / 1000 + 600);
    expect(shareExpiry('2 hours', NOW)).toBe(NOW / 1000 + 7200);
    expect(shareExpiry('1 day', NOW)).toBe(NOW / 1000 + 86_400);
    expect(shareExpiry('48h', NOW)).toBe(NOW / 1000 + 172_800);
  });

  it('refuses more than 48 hours, nothing, and text that is not a duration: 422 naming expires_in', () => {
    expect(refusal(() => shareExpiry('49 hours', NOW))).toBe('422 expires_in: must be at most 48 hours');
    expect(refusal(() => shareExpiry('3 days', NOW))).toBe('422 expires_in: must be at most 48 hours');
    expect(refusal(() => shareExpiry('0s', NOW))).toBe('422 expires_in: must be longer than zero');
    expect(refusal(() => shareExpiry('500ms', NOW))).toBe('422 expires_in: must be at least 1 second');
    expect(refusal(() => shareExpiry('tomorrow', NOW))).toMatch(/^422 expires_in: is not a duration/);
  });
});

describe('share tokens', () => {
  it('round-trip the claims until the expiry, not after', () => {
    const token = signShareToken(claims, SECRET);
    expect(verifyShareToken(token, SECRET, NOW)).toEqual(claims);
    expect(verifyShareToken(token, SECRET, NOW + 59_999)).toEqual(claims);
    expect(verifyShareToken(token, SECRET, NOW + 60_000)).toBeNull();
    const received = { ...claims, kind: 'received' as const };
    expect(verifyShareToken(signShareToken(received, SECRET), SECRET, NOW)).toEqual(received);
  });

  it('refuse any changed byte, another key, and tokens of the other links signed with the same key', () => {
    const token = signShareToken(claims, SECRET);
    for (let i = 0; i < token.length; i++) {
      const changed = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(verifyShareToken(changed, SECRET, NOW), `byte ${i}`).toBeNull();
    }
    expect(verifyShareToken(token, 'x'.repeat(32), NOW)).toBeNull();
    const download = signDownloadToken(
      { teamId: 't1', emailId: 'e1', attachmentId: null, expiresAt: NOW / 1000 + 60 },
      SECRET,
    );
    expect(verifyShareToken(download, SECRET, NOW)).toBeNull();
    // the same payload signed for the unsubscribe links (no purpose) is no share token either
    expect(
      verifyShareToken(
        signToken({ t: 't1', e: 'e1', k: 's', x: NOW / 1000 + 60 }, SECRET, null),
        SECRET,
        NOW,
      ),
    ).toBeNull();
  });

  it('makes the URL under the public URL', () => {
    expect(shareUrl('https://mail.example.com/', claims, SECRET)).toBe(
      `https://mail.example.com/shared/${signShareToken(claims, SECRET)}`,
    );
  });
});

describe('sent attachments', () => {
  const files = [
    { filename: 'a.pdf', content: Buffer.from('hello').toString('base64') },
    { content: Buffer.from('x').toString('base64'), content_id: 'logo', content_type: 'image/png' },
  ];

  it('get stable UUIDv8 ids from the email id and position, distinct per email and position', () => {
    const id = sentAttachmentId('0190A000-0000-7000-8000-000000000001', 0);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sentAttachmentId('0190a000-0000-7000-8000-000000000001', 0)).toBe(id);
    expect(sentAttachmentId('0190a000-0000-7000-8000-000000000001', 1)).not.toBe(id);
    expect(sentAttachmentId('0190a000-0000-7000-8000-000000000002', 0)).not.toBe(id);
  });

  it('lists size, disposition and ids in order, and finds one by id in any case', () => {
    const listed = sentAttachments('e1', files);
    expect(listed).toEqual([
      {
        id: sentAttachmentId('e1', 0),
        index: 0,
        filename: 'a.pdf',
        size: 5,
        content_type: undefined,
        content_id: undefined,
        content_disposition: 'attachment',
      },
      {
        id: sentAttachmentId('e1', 1),
        index: 1,
        filename: undefined,
        size: 1,
        content_type: 'image/png',
        content_id: 'logo',
        content_disposition: 'inline',
      },
    ]);
    expect(findSentAttachment('e1', files, listed[1]!.id.toUpperCase())).toEqual(listed[1]);
    expect(findSentAttachment('e2', files, listed[1]!.id)).toBeNull();
  });
});

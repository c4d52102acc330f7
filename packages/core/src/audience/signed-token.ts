/**
 * Signed URL tokens: a small JSON payload and an HMAC-SHA256 (RFC 2104) over it, so a link in an
 * email can carry who and what it is about and any API process can check it without state. The
 * unsubscribe links and the open/click tracking links share this format and key.
 *
 * Format: `base64url(JSON payload) "." base64url(HMAC-SHA256(secret, input))`, where the input is
 * the payload part, prefixed with `<purpose>.` for every purpose but the original one (unsubscribe
 * links, whose tokens predate purposes and must keep verifying). A base64url payload has no dot,
 * so no token of one purpose is ever valid as a token of another: a click link cannot be replayed
 * as an unsubscribe link even though both are signed with the same key.
 *
 * Only the canonical encoding of the signature is accepted (base64url decoders ignore stray bits
 * of the last character), so a token changed in any byte fails.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../kernel/clock.js';

/** What a builder of signed links under the public URL takes (unsubscribe, tracking, downloads). */
export interface SignedLinksOptions {
  secret: string;
  publicUrl: string;
  /** The links expire `ttlS` seconds after the time it reads. */
  clock: Pick<Clock, 'now'>;
  ttlS?: number;
}

/** Longest token checked at all: an unsubscribe token is about 300 characters. */
const SIGNED_TOKEN_MAX_LENGTH = 4096;

const b64 = (buf: Buffer | string): string => Buffer.from(buf).toString('base64url');

function signature(secret: string, purpose: string | null, body: string): string {
  return b64(
    createHmac('sha256', secret)
      .update(purpose === null ? body : `${purpose}.${body}`)
      .digest(),
  );
}

/** Signs `payload` (any JSON value) for `purpose` (null: the unsubscribe links' original form). */
export function signToken(payload: unknown, secret: string, purpose: string | null): string {
  const body = b64(JSON.stringify(payload));
  return `${body}.${signature(secret, purpose, body)}`;
}

/**
 * The payload of `token` when its signature for `purpose` is right (checked in constant time),
 * else null. The payload is parsed JSON of unknown shape: the caller checks its fields.
 */
export function openToken(
  token: string,
  secret: string,
  purpose: string | null,
  maxLength = SIGNED_TOKEN_MAX_LENGTH,
): unknown {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > maxLength) return null;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(signature(secret, purpose, body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

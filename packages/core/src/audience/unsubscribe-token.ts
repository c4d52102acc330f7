/**
 * Signed unsubscribe tokens: the per-recipient part of a `List-Unsubscribe` URL (RFC 8058 one-click
 * and RFC 2369). The token names the team, the email, the recipient's address and the topic (if
 * any), with an expiry, and carries an HMAC-SHA256 (RFC 2104) over those so a recipient can act on
 * their own address only: changing any byte makes it invalid. No server state is needed to check
 * one, so any API process can answer a click.
 *
 * Format: `base64url(JSON payload) "." base64url(HMAC-SHA256(secret, payload part))`.
 */
import { openToken, signToken, type SignedLinksOptions } from './signed-token.js';

/** How long a link in a sent email keeps working: mail is read (and clicked) months later. */
export const UNSUBSCRIBE_TOKEN_TTL_S = 365 * 24 * 3600;

export interface UnsubscribeClaims {
  teamId: string;
  emailId: string;
  /** The recipient's address as the email had it (bare). */
  recipient: string;
  /** The email's topic: a one-click unsubscribe leaves only that topic. Null: everything. */
  topicId: string | null;
  /** Expiry, epoch seconds. */
  expiresAt: number;
}

interface Payload {
  v: 1;
  t: string;
  e: string;
  r: string;
  p: string | null;
  x: number;
}

export function signUnsubscribeToken(claims: UnsubscribeClaims, secret: string): string {
  const payload: Payload = {
    v: 1,
    t: claims.teamId,
    e: claims.emailId,
    r: claims.recipient,
    p: claims.topicId,
    x: claims.expiresAt,
  };
  // the original purpose (null): links already sent keep working
  return signToken(payload, secret, null);
}

export type TokenCheck =
  { ok: true; claims: UnsubscribeClaims } | { ok: false; reason: 'invalid' | 'expired' };

/** Checks the signature (constant time) and then the expiry against `nowMs`. */
export function verifyUnsubscribeToken(token: string, secret: string, nowMs: number): TokenCheck {
  const p = openToken(token, secret, null) as Payload | null;
  if (p === null || typeof p !== 'object') return { ok: false, reason: 'invalid' };
  if (p.v !== 1 || typeof p.t !== 'string' || typeof p.e !== 'string' || typeof p.r !== 'string') {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof p.x !== 'number' || p.x * 1000 < nowMs) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    claims: { teamId: p.t, emailId: p.e, recipient: p.r, topicId: p.p ?? null, expiresAt: p.x },
  };
}

/** The path under the public URL where unsubscribe links point (the API serves it, unauthenticated). */
export const UNSUBSCRIBE_PATH = '/unsubscribe';

/** The deliver-email `unsubscribe` port: signed per-recipient links under `publicUrl`. */
export function unsubscribeLinks(opts: SignedLinksOptions): {
  url(claims: Omit<UnsubscribeClaims, 'expiresAt'> & { issuedAtMs?: number }): string;
} {
  const base = `${opts.publicUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}/`;
  const ttl = opts.ttlS ?? UNSUBSCRIBE_TOKEN_TTL_S;
  return {
    // the token is deterministic (HMAC, no nonce): the same claims and issue time give the same link
    url: ({ issuedAtMs, ...claims }) =>
      base +
      signUnsubscribeToken(
        { ...claims, expiresAt: Math.floor((issuedAtMs ?? opts.clock.now()) / 1000) + ttl },
        opts.secret,
      ),
  };
}

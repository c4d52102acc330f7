/**
 * Shared email links (`POST /emails/:id/share`, Resend's `emails.share`): a public URL that shows
 * one email as it was sent (or received) to whoever holds the link, without an API key, until
 * it expires. The token in the URL is the credential, as for the received emails' download links
 * (download-token.ts): team, email, which kind of email and an expiry under an HMAC with the key
 * of the other links Petrel signs (signed-token.ts), purpose `email-share`, so no other link's
 * token opens a shared page and a share token opens nothing else.
 *
 * Revocation: the page reads the email's record on every view, so a link dies with the email
 * (its record removed, or expired after the retention) as well as at its own expiry.
 *
 * `expires_in` is Resend's: a duration such as `10m`, `2 hours` or `1 day`, default and at most
 * 48 hours (Resend's API reference, "Share Email").
 */
import { validationError } from '@petrel/contracts';
import { openToken, signToken } from '../audience/signed-token.js';
import { parseDuration } from '../automations/duration.js';

/** Resend's default and longest lifetime of a shared link: 48 hours. */
export const SHARE_MAX_MS = 48 * 3_600_000;

/** The path under the public URL where shared pages are served (without an API key). */
export const SHARE_PATH = '/shared';

const PURPOSE = 'email-share';

/** A sent email (`/emails/:id`) or a received one (`/emails/receiving/:id`). */
export type SharedEmailKind = 'sent' | 'received';

export interface ShareClaims {
  teamId: string;
  emailId: string;
  kind: SharedEmailKind;
  /** Expiry, epoch seconds. */
  expiresAt: number;
}

interface Payload {
  t: string;
  e: string;
  k: 's' | 'r';
  x: number;
}

/** The expiry (epoch seconds) of a link made at `nowMs` for `expiresIn`; a bad value is a 422. */
export function shareExpiry(expiresIn: string | undefined, nowMs: number): number {
  let ms = SHARE_MAX_MS;
  if (expiresIn !== undefined) {
    const parsed = parseDuration(expiresIn, Number.POSITIVE_INFINITY);
    if (!parsed.ok) throw validationError(`expires_in: ${parsed.reason}`);
    if (parsed.ms > SHARE_MAX_MS) throw validationError('expires_in: must be at most 48 hours');
    if (parsed.ms < 1000) throw validationError('expires_in: must be at least 1 second');
    ms = parsed.ms;
  }
  return Math.floor((nowMs + ms) / 1000);
}

export function signShareToken(c: ShareClaims, secret: string): string {
  const payload: Payload = { t: c.teamId, e: c.emailId, k: c.kind === 'sent' ? 's' : 'r', x: c.expiresAt };
  return signToken(payload, secret, PURPOSE);
}

/** The claims of a valid, unexpired token; null otherwise (which of the two is not told). */
export function verifyShareToken(token: string, secret: string, nowMs: number): ShareClaims | null {
  const p = openToken(token, secret, PURPOSE) as Partial<Payload> | null;
  if (p === null || typeof p !== 'object') return null;
  if (typeof p.t !== 'string' || typeof p.e !== 'string' || typeof p.x !== 'number') return null;
  if (p.k !== 's' && p.k !== 'r') return null;
  if (p.x * 1000 <= nowMs) return null;
  return { teamId: p.t, emailId: p.e, kind: p.k === 's' ? 'sent' : 'received', expiresAt: p.x };
}

/** The shared page's URL under `publicUrl`, for an email of the team, valid until `expiresAt`. */
export function shareUrl(publicUrl: string, claims: ShareClaims, secret: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${SHARE_PATH}/${signShareToken(claims, secret)}`;
}

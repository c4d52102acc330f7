/**
 * The short-lived signed URLs of received emails: `raw.download_url` of GET
 * /emails/receiving/:id and the `download_url` of its attachments. Resend hands out URLs that
 * work without an API key for a short while (the SDK's forward helper fetches the raw message
 * with a plain `fetch`); here the token in the path is the credential — team, email, which part
 * and an expiry under an HMAC with the key of the other links Petrel signs (signed-token.ts,
 * purpose `inbound-download`, so no other link's token opens a download).
 */
import { openToken, signToken, type SignedLinksOptions } from '../audience/signed-token.js';

/** How long a download URL works: long enough to fetch, short enough not to be a share link. */
export const INBOUND_DOWNLOAD_TTL_S = 3600;

/** The path under the public URL where download links point (served without an API key). */
export const INBOUND_DOWNLOAD_PATH = '/emails/receiving/downloads';

const PURPOSE = 'inbound-download';

export interface DownloadClaims {
  teamId: string;
  emailId: string;
  /** The attachment's id; null for the raw message. */
  attachmentId: string | null;
  /** Expiry, epoch seconds. */
  expiresAt: number;
  /**
   * Which email the link reads: a received one (the default, and every token made before sent
   * emails had links) or a sent one's attachment (GET /emails/:id/attachments).
   */
  source?: 'received' | 'sent';
}

interface Payload {
  t: string;
  e: string;
  a: string | null;
  x: number;
  /** 1: a sent email's attachment; absent: a received email. */
  s?: 1;
}

export function signDownloadToken(c: DownloadClaims, secret: string): string {
  const payload: Payload = { t: c.teamId, e: c.emailId, a: c.attachmentId, x: c.expiresAt };
  if (c.source === 'sent') payload.s = 1;
  return signToken(payload, secret, PURPOSE);
}

/** The claims of a valid, unexpired token; null otherwise (which of the two is not told). */
export function verifyDownloadToken(token: string, secret: string, nowMs: number): DownloadClaims | null {
  const p = openToken(token, secret, PURPOSE) as Partial<Payload> | null;
  if (p === null || typeof p !== 'object') return null;
  if (typeof p.t !== 'string' || typeof p.e !== 'string' || typeof p.x !== 'number') return null;
  if (p.a !== null && typeof p.a !== 'string') return null;
  if (p.x * 1000 < nowMs) return null;
  const source = p.s === 1 ? 'sent' : 'received';
  return { teamId: p.t, emailId: p.e, attachmentId: p.a, expiresAt: p.x, source };
}

/** The path of sent emails' attachment downloads (served without an API key). */
export const SENT_DOWNLOAD_PATH = '/emails/downloads';

/** Builds download URLs under `publicUrl` (at `path`, default received emails'), valid for `ttlS` from now. */
export function inboundDownloadLinks(opts: SignedLinksOptions & { path?: string }): {
  url(claims: Omit<DownloadClaims, 'expiresAt'>): { download_url: string; expires_at: string };
} {
  const base = `${opts.publicUrl.replace(/\/+$/, '')}${opts.path ?? INBOUND_DOWNLOAD_PATH}/`;
  const ttl = opts.ttlS ?? INBOUND_DOWNLOAD_TTL_S;
  return {
    url(claims) {
      const expiresAt = Math.floor(opts.clock.now() / 1000) + ttl;
      return {
        download_url: base + signDownloadToken({ ...claims, expiresAt }, opts.secret),
        expires_at: new Date(expiresAt * 1000).toISOString(),
      };
    },
  };
}

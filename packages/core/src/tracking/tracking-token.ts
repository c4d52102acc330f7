/**
 * Tracking tokens: the last path segment of an open pixel (`/t/o/<token>`) and of a rewritten
 * link (`/t/c/<token>`). A token names the team, the email and the recipient, and a click token
 * the exact URL the link had, all under an HMAC-SHA256 with an expiry (the signed-token format
 * of the unsubscribe links, with purposes of its own so neither kind passes for the other). The
 * redirect goes only to a URL this service signed: changing one byte of the token — to point it
 * elsewhere — makes it invalid, so the click route is never an open redirect.
 */
import { openToken, signToken, type SignedLinksOptions } from '../audience/signed-token.js';

/**
 * How long tracking links work. Mail is read and clicked months later, and an expired click link
 * can no longer redirect: a year, like the unsubscribe links.
 */
export const TRACKING_TOKEN_TTL_S = 365 * 24 * 3600;

/** Longest click token accepted: the URL is inside it (URLs in mail rarely pass 2,000 characters). */
export const TRACKING_TOKEN_MAX_LENGTH = 8192;

/** Longest link URL that is rewritten; a longer one is left as it is (its token would be too long). */
export const TRACKED_URL_MAX_LENGTH = 4096;

/** Paths under the public URL (the API serves them without an API key). */
export const OPEN_PATH = '/t/o';
export const CLICK_PATH = '/t/c';

export type TrackingKind = 'open' | 'click';

export interface TrackingClaims {
  teamId: string;
  emailId: string;
  /** The recipient's bare address, as the envelope had it. */
  recipient: string;
  /** Expiry, epoch seconds. */
  expiresAt: number;
}

export interface ClickClaims extends TrackingClaims {
  /** The link's URL exactly as the browser would have followed it. */
  url: string;
}

interface Payload {
  v: 1;
  t: string;
  e: string;
  r: string;
  x: number;
  u?: string;
}

/** HMAC purposes: a token of one kind never verifies as the other, nor as an unsubscribe token. */
const PURPOSE: Record<TrackingKind, string> = { open: 'petrel-open', click: 'petrel-click' };

export function signOpenToken(claims: TrackingClaims, secret: string): string {
  const p: Payload = { v: 1, t: claims.teamId, e: claims.emailId, r: claims.recipient, x: claims.expiresAt };
  return signToken(p, secret, PURPOSE.open);
}

export function signClickToken(claims: ClickClaims, secret: string): string {
  const p: Payload = {
    v: 1,
    t: claims.teamId,
    e: claims.emailId,
    r: claims.recipient,
    x: claims.expiresAt,
    u: claims.url,
  };
  return signToken(p, secret, PURPOSE.click);
}

export type TrackingCheck<C> =
  | { ok: true; claims: C }
  /** Signed by us but past its time: the claims are authentic, so a page may show the link. */
  | { ok: false; reason: 'expired'; claims: C }
  | { ok: false; reason: 'invalid' };

function check(token: string, secret: string, kind: TrackingKind, nowMs: number): TrackingCheck<ClickClaims> {
  const p = openToken(token, secret, PURPOSE[kind], TRACKING_TOKEN_MAX_LENGTH) as Payload | null;
  if (p === null || typeof p !== 'object') return { ok: false, reason: 'invalid' };
  if (p.v !== 1 || typeof p.t !== 'string' || typeof p.e !== 'string' || typeof p.r !== 'string') {
    return { ok: false, reason: 'invalid' };
  }
  if (typeof p.x !== 'number' || (kind === 'click' && typeof p.u !== 'string')) {
    return { ok: false, reason: 'invalid' };
  }
  const claims = { teamId: p.t, emailId: p.e, recipient: p.r, expiresAt: p.x, url: p.u ?? '' };
  if (p.x * 1000 < nowMs) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}

/** Checks an open token's signature (constant time), shape and expiry. */
export function verifyOpenToken(token: string, secret: string, nowMs: number): TrackingCheck<TrackingClaims> {
  const c = check(token, secret, 'open', nowMs);
  if (c.ok || c.reason === 'expired') {
    const { url: _url, ...claims } = c.claims;
    return { ...c, claims };
  }
  return c;
}

/** Checks a click token; its `url` is the one the link had when the email was sent. */
export function verifyClickToken(token: string, secret: string, nowMs: number): TrackingCheck<ClickClaims> {
  return check(token, secret, 'click', nowMs);
}

/** The deliver-email side: the URLs of one recipient's pixel and links under `publicUrl`. */
export interface TrackingLinks {
  /** The public URL's origin and path prefix: links under it (unsubscribe, tracking) are never rewritten. */
  readonly base: string;
  openUrl(claims: Omit<TrackingClaims, 'expiresAt'>): string;
  clickUrl(claims: Omit<ClickClaims, 'expiresAt'>): string;
}

export function trackingLinks(opts: SignedLinksOptions): TrackingLinks {
  const base = opts.publicUrl.replace(/\/+$/, '');
  const ttl = opts.ttlS ?? TRACKING_TOKEN_TTL_S;
  const expiresAt = () => Math.floor(opts.clock.now() / 1000) + ttl;
  return {
    base,
    openUrl: (c) => `${base}${OPEN_PATH}/${signOpenToken({ ...c, expiresAt: expiresAt() }, opts.secret)}`,
    clickUrl: (c) => `${base}${CLICK_PATH}/${signClickToken({ ...c, expiresAt: expiresAt() }, opts.secret)}`,
  };
}

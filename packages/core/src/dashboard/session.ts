/**
 * Dashboard sessions: a full-access API key is exchanged once for a server-side session, so the
 * browser holds only an httpOnly cookie naming the session, never the key. The rules:
 *  - only a full_access key signs in (a sending_access key is scoped to sending by Resend);
 *  - a session lives `ttlMs` from sign-in (no sliding renewal: a stolen cookie dies on time);
 *  - a session dies with its key: revoking the key ends every session made from it;
 *  - the cookie is `signToken({t, s})` (HMAC-SHA256, purpose `dashboard-session`), so a forged or
 *    altered cookie is refused before any read, and the team in it picks the session's slot;
 *  - a request that changes state (any method but GET/HEAD/OPTIONS) authenticated by the cookie
 *    carries the session's CSRF token in a header (OWASP "double submit cookie", checked against
 *    the server's copy): another site can make the browser send the cookie, not read the token.
 */
import { timingSafeEqual } from 'node:crypto';
import { openToken, signToken } from '../audience/signed-token.js';

export const SESSION_TOKEN_PURPOSE = 'dashboard-session';

export interface DashboardSession {
  id: string;
  teamId: string;
  keyId: string;
  /** The key's name when read (a renamed key shows its new name). */
  keyName: string;
  csrfToken: string;
  createdMs: number;
  expiresMs: number;
}

export interface SessionKeyAuthenticator {
  /** The key behind a bearer token, or null when unknown or revoked. */
  authenticate(
    token: string,
  ): Promise<{ teamId: string; keyId: string; permission: 'full_access' | 'sending_access' } | null>;
}

export interface DashboardSessionRepository {
  /** Store `session`; it vanishes by itself at `expiresMs`. */
  create(session: DashboardSession): Promise<void>;
  /** The session, or null when unknown, expired, or its key is revoked (keyName read live). */
  get(teamId: string, sessionId: string): Promise<DashboardSession | null>;
  delete(teamId: string, sessionId: string): Promise<void>;
  /** The name of a live key (null when revoked). */
  keyName(teamId: string, keyId: string): Promise<string | null>;
}

export interface DashboardSessionPorts {
  keys: SessionKeyAuthenticator;
  sessions: DashboardSessionRepository;
  clock: { now(): number };
  /** A fresh unguessable token (≥ 128 bits), e.g. 32 random bytes base64url. */
  randomToken(): string;
  /** The key of the cookie's HMAC. */
  secret: string;
  ttlMs: number;
}

export type SignInResult =
  | { ok: true; session: DashboardSession; cookie: string }
  | { ok: false; reason: 'unknown_key' | 'not_full_access' };

/** Exchange an API key for a session and the signed cookie value naming it. */
export async function signIn(apiKey: string, ports: DashboardSessionPorts): Promise<SignInResult> {
  const key = await ports.keys.authenticate(apiKey);
  if (!key) return { ok: false, reason: 'unknown_key' };
  if (key.permission !== 'full_access') return { ok: false, reason: 'not_full_access' };
  const now = ports.clock.now();
  const session: DashboardSession = {
    id: ports.randomToken(),
    teamId: key.teamId,
    keyId: key.keyId,
    keyName: (await ports.sessions.keyName(key.teamId, key.keyId)) ?? '',
    csrfToken: ports.randomToken(),
    createdMs: now,
    expiresMs: now + ports.ttlMs,
  };
  await ports.sessions.create(session);
  return { ok: true, session, cookie: sessionCookieValue(session, ports.secret) };
}

export function sessionCookieValue(session: Pick<DashboardSession, 'id' | 'teamId'>, secret: string): string {
  return signToken({ t: session.teamId, s: session.id }, secret, SESSION_TOKEN_PURPOSE);
}

/** The team and session id a cookie names, or null when its signature or shape is wrong. */
export function openSessionCookie(
  cookie: string,
  secret: string,
): { teamId: string; sessionId: string } | null {
  const payload = openToken(cookie, secret, SESSION_TOKEN_PURPOSE, 512) as {
    t?: unknown;
    s?: unknown;
  } | null;
  if (!payload || typeof payload !== 'object') return null;
  const { t, s } = payload;
  if (typeof t !== 'string' || typeof s !== 'string' || t === '' || s === '') return null;
  return { teamId: t, sessionId: s };
}

/** Methods that must not change state (RFC 9110 9.2.1): no CSRF token needed. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export type SessionCheck =
  { ok: true; session: DashboardSession } | { ok: false; reason: 'no_session' | 'expired' | 'csrf' };

/**
 * The session a request's cookie names, checked: signature, existence (unknown, signed out, or
 * key revoked), expiry, and for an unsafe method the CSRF token.
 */
export async function checkSession(
  input: { cookie: string | undefined; method: string; csrfHeader: string | undefined },
  ports: Pick<DashboardSessionPorts, 'sessions' | 'clock' | 'secret'>,
): Promise<SessionCheck> {
  if (!input.cookie) return { ok: false, reason: 'no_session' };
  const named = openSessionCookie(input.cookie, ports.secret);
  if (!named) return { ok: false, reason: 'no_session' };
  const session = await ports.sessions.get(named.teamId, named.sessionId);
  if (!session) return { ok: false, reason: 'no_session' };
  if (session.expiresMs <= ports.clock.now()) return { ok: false, reason: 'expired' };
  if (!SAFE_METHODS.has(input.method.toUpperCase()) && !csrfMatches(input.csrfHeader, session.csrfToken)) {
    return { ok: false, reason: 'csrf' };
  }
  return { ok: true, session };
}

/** Constant-time comparison of the presented CSRF token with the session's. */
export function csrfMatches(given: string | undefined, expected: string): boolean {
  if (!given || expected === '') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** End the session a cookie names (unknown or already ended: nothing to do). */
export async function signOut(
  cookie: string | undefined,
  ports: Pick<DashboardSessionPorts, 'sessions' | 'secret'>,
): Promise<void> {
  const named = cookie ? openSessionCookie(cookie, ports.secret) : null;
  if (named) await ports.sessions.delete(named.teamId, named.sessionId);
}

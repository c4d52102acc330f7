/**
 * The dashboard's two cookies (RFC 6265): the session cookie, httpOnly so no script reads it, and
 * the CSRF cookie, readable by the app's own script, which echoes it in the `x-csrf-token`
 * header of every write. Both SameSite=Strict (a request started by another site carries
 * neither), Path=/ (the app calls the public API at the root), Secure when the dashboard is
 * reached over https.
 */
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'petrel_session';
const CSRF_COOKIE = 'petrel_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The value of cookie `name` in the request's Cookie header (first occurrence, surrounding quotes
 * removed), or undefined — also when its percent-encoding is broken, which `cookie` would pass
 * through undecoded.
 */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const raw = parseCookies(header, { decode: (s) => s })[name];
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * Over https (directly, or behind a proxy that says so, or a PUBLIC_URL that is https) the
 * cookies are Secure: never sent over plain http.
 */
export function isHttps(req: Request, publicUrl: string | undefined): boolean {
  return (
    req.secure ||
    /^https$/i.test(
      String(req.headers['x-forwarded-proto'] ?? '')
        .split(',')[0]!
        .trim(),
    ) ||
    Boolean(publicUrl?.toLowerCase().startsWith('https:'))
  );
}

function cookie(name: string, value: string, maxAgeS: number, httpOnly: boolean, secure: boolean): string {
  return serializeCookie(name, value, { path: '/', maxAge: maxAgeS, httpOnly, secure, sameSite: 'strict' });
}

export function setSessionCookies(
  res: Response,
  values: { session: string; csrf: string; maxAgeS: number; secure: boolean },
): void {
  res.append('Set-Cookie', cookie(SESSION_COOKIE, values.session, values.maxAgeS, true, values.secure));
  res.append('Set-Cookie', cookie(CSRF_COOKIE, values.csrf, values.maxAgeS, false, values.secure));
}

export function clearSessionCookies(res: Response, secure: boolean): void {
  res.append('Set-Cookie', cookie(SESSION_COOKIE, '', 0, true, secure));
  res.append('Set-Cookie', cookie(CSRF_COOKIE, '', 0, false, secure));
}

/**
 * The one way the dashboard talks to the API: same-origin fetch with the session cookie,
 * the CSRF header on every write, JSON in and out. A 401 means the session is gone: the app
 * falls back to the sign-in page.
 */
import { parse as parseCookies } from 'cookie';
import { SESSION_CONFIG } from './session-config';
import { buildQuery, type QueryValues } from './url';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface List<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any request answers 401 (expired or revoked session). */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

const readCookie = (name: string): string | undefined => parseCookies(document.cookie)[name];

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface RequestOptions {
  query?: QueryValues;
  body?: unknown;
  /** Do not treat 401 as "signed out" (the sign-in request itself). */
  quiet401?: boolean;
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  if (WRITES.has(method)) {
    const token = readCookie(SESSION_CONFIG.csrfCookie);
    if (token) headers[SESSION_CONFIG.csrfHeader] = token;
  }
  const url = `${path.startsWith('/dashboard/') ? '' : SESSION_CONFIG.apiRoot}${path}${buildQuery(opts.query ?? {})}`;
  const res = await fetch(url, { method, headers, body, credentials: 'same-origin', cache: 'no-store' });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (a proxy's error page): the status says enough
  }
  if (!res.ok) {
    const err = (json ?? {}) as { name?: string; message?: string };
    if (res.status === 401 && !opts.quiet401) unauthorizedListeners.forEach((l) => l());
    throw new ApiError(res.status, err.name ?? 'error', err.message ?? `${res.status} ${res.statusText}`);
  }
  return json as T;
}

export const api = {
  get: <T>(path: string, query?: QueryValues) => request<T>('GET', path, { query }),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, { body: body ?? {} }),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, { body }),
  del: <T>(path: string) => request<T>('DELETE', path),
};

/** Path segment from an id: ids come from the API but are encoded all the same. */
export const seg = (id: string): string => encodeURIComponent(id);

export interface SessionInfo {
  team_id?: string;
  expires_at?: string;
}

export const session = {
  /**
   * Whether a session cookie may be there to check. The server sets and clears the readable CSRF
   * cookie with the httpOnly session cookie, with the same lifetime: without it, asking the server
   * could only be answered 401, which the browser logs as an error on every signed-out load.
   */
  mayExist: () => readCookie(SESSION_CONFIG.csrfCookie) !== undefined,
  signIn: (apiKey: string) =>
    request<SessionInfo>('POST', SESSION_CONFIG.signInPath, { body: { api_key: apiKey }, quiet401: true }),
  current: () => request<SessionInfo>('GET', SESSION_CONFIG.sessionPath, { quiet401: true }),
  signOut: () => request<unknown>('DELETE', SESSION_CONFIG.signOutPath, { quiet401: true }),
};

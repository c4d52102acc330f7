/**
 * A browser on the dashboard's origin, as the e2e tests drive it: a cookie jar (a `Set-Cookie`
 * with `Max-Age=0` removes the cookie, RFC 6265 section 5.2.2), the CSRF cookie's value sent as
 * `x-csrf-token` on every request unless overridden, and no Bearer key: the cookies alone.
 */
import { expect } from 'vitest';
import type { Stack } from './helpers.js';

export interface DashboardBrowser {
  cookies: Map<string, string>;
  /** The CSRF cookie's value (the token a write carries). */
  csrf(): string | undefined;
  /** `csrf`: the header's value instead of the cookie's; null sends none. */
  request(
    path: string,
    init?: { method?: string; body?: unknown; csrf?: string | null },
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export function dashboardBrowser(stack: Stack): DashboardBrowser {
  const cookies = new Map<string, string>();
  return {
    cookies,
    csrf: () => cookies.get('petrel_csrf'),
    async request(path, init = {}) {
      const headers = new Headers();
      if (cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      const csrf = init.csrf === undefined ? cookies.get('petrel_csrf') : init.csrf;
      if (csrf !== null && csrf !== undefined) headers.set('x-csrf-token', csrf);
      const res = await stack.http(path, {
        key: null,
        method: init.method ?? 'GET',
        headers,
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        if (/Max-Age=0/i.test(c)) cookies.delete(name);
        else cookies.set(name, pair!.slice(eq + 1));
      }
      return res;
    },
  };
}

/** A browser signed in to the dashboard with `apiKey` (a full-access key). */
export async function signInToDashboard(stack: Stack, apiKey: string): Promise<DashboardBrowser> {
  const browser = dashboardBrowser(stack);
  const res = await browser.request('/dashboard/session', { method: 'POST', body: { api_key: apiKey } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return browser;
}

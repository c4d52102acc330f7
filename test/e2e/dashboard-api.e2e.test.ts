/**
 * The dashboard's server side through the whole stack: sign-in with a full-access key for a
 * session cookie, cookie-authenticated API calls with CSRF on writes, sign-out, the SDK's Bearer
 * keys unchanged, the email search filters and counters, and the CSP on /dashboard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { dashboardBrowser, signInToDashboard } from './dashboard-browser.js';
import { email, startStack, type Stack } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

/** A cookie jar and fetch, as a browser on the dashboard's origin would send them. */
const browser = () => dashboardBrowser(stack);
const signedIn = () => signInToDashboard(stack, stack.key);

describe('dashboard sessions', () => {
  it('signs in with a full-access key: an httpOnly SameSite=Strict session cookie and a readable CSRF cookie', async () => {
    const b = browser();
    const res = await b.request('/dashboard/session', { method: 'POST', body: { api_key: stack.key } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'dashboard_session', key_name: 'bootstrap' });
    const setCookies = res.headers.getSetCookie();
    const session = setCookies.find((c) => c.startsWith('petrel_session='))!;
    const csrf = setCookies.find((c) => c.startsWith('petrel_csrf='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Strict/);
    expect(session).not.toContain(stack.key);
    expect(csrf).not.toMatch(/HttpOnly/);
    expect(csrf).toMatch(/; SameSite=Strict/);
    expect(res.body.csrf_token).toBe(b.csrf());

    const me = await b.request('/dashboard/session');
    expect(me.status).toBe(200);
    expect(me.body.team_id).toBe(res.body.team_id);
    expect(Date.parse(me.body.expires_at)).toBeGreaterThan(Date.now());
  });

  it('refuses a sending_access key and an unknown key', async () => {
    const { data } = await stack.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const b = browser();
    const sending = await b.request('/dashboard/session', { method: 'POST', body: { api_key: data!.token } });
    expect(sending.status).toBe(401);
    expect(sending.body.name).toBe('restricted_api_key');
    expect(b.cookies.size).toBe(0);
    const unknown = await b.request('/dashboard/session', { method: 'POST', body: { api_key: 're_nope' } });
    expect(unknown.status).toBe(403);
    expect((await b.request('/dashboard/session')).status).toBe(401);
  });

  it('authenticates API calls by the cookie; a write needs the CSRF header; sign-out ends the session', async () => {
    const b = await signedIn();
    const list = await b.request('/emails');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');

    const topic = { name: 'Dashboard news', default_subscription: 'opt_in' };
    const without = await b.request('/topics', { method: 'POST', body: topic, csrf: null });
    expect(without.status).toBe(403);
    expect(without.body.name).toBe('invalid_csrf_token');
    const wrong = await b.request('/topics', { method: 'POST', body: topic, csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    const withToken = await b.request('/topics', { method: 'POST', body: topic });
    expect(withToken.status).toBe(201);

    const signOutWithoutToken = await b.request('/dashboard/session', { method: 'DELETE', csrf: null });
    expect(signOutWithoutToken.status).toBe(403);
    const stolen = new Map(b.cookies);
    const out = await b.request('/dashboard/session', { method: 'DELETE' });
    expect(out.status).toBe(200);
    expect(b.cookies.size).toBe(0);
    // the old cookie, replayed, is dead server-side
    const replay = browser();
    for (const [k, v] of stolen) replay.cookies.set(k, v);
    const after = await replay.request('/emails');
    expect(after.status).toBe(401);
    expect(after.body.name).toBe('invalid_session');
    // the app's session check, with the dead cookies: 401, and both cookies cleared
    const check = await replay.request('/dashboard/session');
    expect(check.status).toBe(401);
    expect(check.headers.getSetCookie().filter((c) => /Max-Age=0/.test(c))).toHaveLength(2);
    expect(replay.cookies.size).toBe(0);
  });

  it('leaves the SDK with a Bearer key unchanged', async () => {
    const { data, error } = await stack.resend.emails.list();
    expect(error).toBeNull();
    expect(data?.object).toBe('list');
    const anonymous = await stack.http('/emails', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.name).toBe('missing_api_key');
  });

  it('serves /dashboard with a strict CSP and takes CSP reports', async () => {
    const page = await fetch(`${stack.baseUrl}/dashboard/emails/some-id`);
    await page.arrayBuffer();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');

    const report = await fetch(`${stack.baseUrl}/dashboard/csp-report`, {
      method: 'POST',
      headers: { 'content-type': 'application/csp-report' },
      body: JSON.stringify({ 'csp-report': { 'violated-directive': 'script-src-elem' } }),
    });
    expect(report.status).toBe(202);
    const b = await signedIn();
    const reports = await b.request('/dashboard/csp-report');
    expect(reports.body.data.at(-1).report).toEqual({
      'csp-report': { 'violated-directive': 'script-src-elem' },
    });
    expect((await stack.http('/dashboard/csp-report', { key: null })).status).toBe(401);
  });

  it('serves the icon the app links, and as /favicon.ico, with no key and no session', async () => {
    const index = await (await fetch(`${stack.baseUrl}/dashboard/`)).text();
    const linked = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(index)?.[1];
    expect(linked, 'the <link rel="icon"> of index.html').toBeDefined();
    const icon = await fetch(`${stack.baseUrl}${linked}`);
    const svg = await icon.text();
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml\b/);
    expect(svg).toMatch(/^<svg /);

    const favicon = await fetch(`${stack.baseUrl}/favicon.ico`); // no Authorization, no cookie
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toMatch(/^image\//);
    expect(await favicon.text()).toBe(svg);
    expect(favicon.headers.get('content-security-policy')).toContain("script-src 'self'");
    // a session cookie changes nothing
    const b = await signedIn();
    const signedInFavicon = await b.request('/favicon.ico');
    expect(signedInFavicon.status).toBe(200);
    expect(signedInFavicon.headers.get('content-type')).toMatch(/^image\//);
  });
});

describe('email search and counters', () => {
  it('finds emails by to, status and tag through pages, and counts delivered emails per hour', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const { data, error } = await stack.resend.batch.send(
      Array.from({ length: 7 }, (_, i) =>
        email(i, {
          to: [i % 2 === 0 ? 'Searched.Person@Example.test' : `someone${i}@example.test`],
          subject: i < 3 ? `Quarterly report ${i}` : `Hello ${i}`,
          tags: [{ name: 'campaign', value: i < 4 ? 'spring' : 'summer' }],
        }),
      ) as never,
    );
    expect(error).toBeNull();
    const ids = data!.data.map((d) => d.id);
    await stack.settled(ids);
    const b = await signedIn();
    const all = async (query: string): Promise<string[]> => {
      const out: string[] = [];
      let after = '';
      for (;;) {
        const res = await b.request(`/emails?limit=2&${query}${after && `&after=${after}`}`);
        expect(res.status).toBe(200);
        out.push(...res.body.data.map((e: { id: string }) => e.id));
        if (!res.body.has_more) return out;
        after = out.at(-1)!;
      }
    };
    const newestFirst = (pick: (i: number) => boolean) => ids.filter((_, i) => pick(i)).reverse();
    // a batch's emails share one creation time: the listing orders them by id (UUIDv7)
    const sorted = (list: string[]) => [...list].sort().reverse();
    expect(sorted(await all('to=searched.person%40example.test'))).toEqual(
      sorted(newestFirst((i) => i % 2 === 0)),
    );
    expect(sorted(await all('tag=campaign%3Dspring'))).toEqual(sorted(newestFirst((i) => i < 4)));
    expect(sorted(await all('subject=quarterly'))).toEqual(sorted(newestFirst((i) => i < 3)));
    expect(sorted(await all('status=delivered&tag=campaign'))).toEqual(sorted(ids));
    expect(await all('status=bounced')).toEqual([]);
    const bad = await b.request('/emails?status=lost');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^status: /);

    const stats = await waitUntil(
      async () => {
        const res = await stack.http(`/stats/emails?from=${encodeURIComponent(from)}&lane=send`);
        expect(res.status).toBe(200);
        const delivered = res.body.data.reduce((n: number, r: { delivered: number }) => n + r.delivered, 0);
        return delivered >= 7 ? res.body : null;
      },
      { timeoutMs: 15_000, message: 'the delivered counter to reach 7' },
    );
    expect(stats.object).toBe('list');
    expect(stats.data.every((r: { lane: string }) => r.lane === 'send')).toBe(true);
    expect(stats.data.at(-1)).toMatchObject({
      lane: 'send',
      sent: expect.any(Number),
      bounced: 0,
      complained: 0,
    });
    expect((await stack.http('/stats/emails?lane=nope')).status).toBe(422);
  });
});

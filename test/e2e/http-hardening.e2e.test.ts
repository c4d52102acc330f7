/**
 * The HTTP servers against slow clients and browsers: a request whose body stops coming gets a
 * 408 once HTTP_REQUEST_TIMEOUT_MS has passed (Node's default would hold it 300 s), on the API
 * and on the health + /metrics server alike; and every API response — success, 401, 404, 422,
 * 429, /health — carries the security headers of a JSON API (OWASP REST Security Cheat Sheet), while
 * the dashboard keeps its own policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawHttpClient } from '@petrel/testing';
import { RateLimitStore } from '@petrel/store';
import { email, otherTeam, startStack, type Stack } from './helpers.js';

/** Small, so the test waits seconds; the stack's servers sweep for expired requests every 200 ms. */
const REQUEST_TIMEOUT_MS = 2_000;
/** The upper bound allows for a loaded machine: only the lower bound is the documented semantics. */
const GENEROUS_MS = 30_000;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    env: {
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

const portOf = (url: string) => Number(new URL(url).port);

/** Sends `head` and `body`, then nothing: the status line the server answers, and after how long. */
async function stall(port: number, request: string): Promise<{ status: string; ms: number }> {
  const client = await rawHttpClient(port);
  try {
    const started = performance.now();
    client.socket.write(request);
    const status = await client.statusLine();
    return { status, ms: performance.now() - started };
  } finally {
    client.close();
  }
}

describe('slow clients', () => {
  it('a body shorter than its Content-Length gets 408 from the API after HTTP_REQUEST_TIMEOUT_MS', async () => {
    // authenticated, so the API reads the body (an anonymous request is refused before it)
    const { status, ms } = await stall(
      portOf(stack.baseUrl),
      'POST /emails HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${stack.key}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 1000\r\n\r\n{"from"',
    );
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + GENEROUS_MS);
  });

  it('the health + /metrics server answers stalled headers with 408 after the configured timeout too', async () => {
    const { status, ms } = await stall(
      portOf(stack.metricsUrl),
      'GET /metrics HTTP/1.1\r\nHost: localhost\r\n',
    );
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + GENEROUS_MS);
  });
});

/** What the OWASP REST Security Cheat Sheet asks of every JSON API response. */
const JSON_API_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

function expectJsonApiHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(JSON_API_HEADERS)) expect(headers.get(name), name).toBe(value);
  expect(headers.get('x-powered-by')).toBeNull();
}

describe('security headers', () => {
  it('are on a 200, a 401, a 404, a 422 and /health', async () => {
    const ok = await stack.http('/emails');
    expect(ok.status).toBe(200);
    expectJsonApiHeaders(ok.headers);

    const anonymous = await stack.http('/emails', { key: null });
    expect(anonymous.status).toBe(401);
    expectJsonApiHeaders(anonymous.headers);

    const noRoute = await stack.http('/no-such-route');
    expect(noRoute.status).toBe(404);
    expect(noRoute.body.message).toMatch(/^No route for GET \/no-such-route/);
    expectJsonApiHeaders(noRoute.headers);

    const invalid = await stack.http('/emails', {
      method: 'POST',
      body: JSON.stringify(email(0, { to: 42 })),
    });
    expect(invalid.status).toBe(422);
    expectJsonApiHeaders(invalid.headers);

    const health = await stack.http('/health', { key: null });
    expect(health.status).toBe(200);
    expectJsonApiHeaders(health.headers);
  });

  it('are on a 429', async () => {
    // a team of its own limited to 1 request a second: the stack's other requests are not limited
    const { teamId, key } = await otherTeam(stack, 'limited');
    await new RateLimitStore(stack.admin, stack.keys).setLimits(teamId, { rps: 1 });
    // ten at once: more than one second's allowance, however slow the machine
    const answers = await Promise.all(Array.from({ length: 10 }, () => stack.http('/emails', { key })));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const a of limited) expectJsonApiHeaders(a.headers);
  });

  it('leave the dashboard its own policy and caching', async () => {
    const page = await fetch(`${stack.baseUrl}/dashboard/emails`);
    const html = await page.text();
    // its own policy (its scripts and styles), not the API's `default-src 'none'`
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'; script-src 'self';/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    // a hashed asset of the build keeps its year-long cache
    const asset = /\/dashboard\/assets\/[^"]+\.js/.exec(html)?.[0];
    expect(asset, 'the built dashboard names its script').toBeDefined();
    const script = await fetch(`${stack.baseUrl}${asset!}`);
    await script.arrayBuffer();
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});

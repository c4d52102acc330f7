/**
 * Every route that reads a body (enumerated from the Express router), fed
 * arbitrary JSON and mutations of valid bodies (fast-check), plus the nasty cases: 10,000-deep
 * nesting, a 1 MB subject, a 101-email batch, non-JSON; arbitrary ids for DELETE /emails/:id.
 * Never a 5xx; every refusal is a 4xx with the error body; the API stays responsive (a health
 * probe answers between rounds).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { email, startStack, type Stack } from './helpers.js';
import {
  automationBody,
  createTeamResources,
  fillPath,
  isLinkRoute,
  type TeamResources,
} from './team-resources.js';

let stack: Stack;
let resources: TeamResources;

beforeAll(async () => {
  stack = await startStack();
  resources = await createTeamResources(stack, 'fuzz');
});
afterAll(async () => {
  await stack?.stop();
});

const fill = (path: string): string => fillPath(path, resources)[0]!;
const idOf = (owner: string): string => resources.ids[owner]![0]!;

/** A valid body per route, to mutate. */
const VALID: Record<string, unknown> = {
  'POST /emails': email(2),
  'POST /emails/batch': [email(3), email(4)],
  'PATCH /emails/:id': { scheduled_at: 'in 2 hours' },
  'POST /templates': {
    name: 't',
    subject: 's',
    html: '<p>{{{A}}}</p>',
    variables: [{ key: 'A', type: 'string' }],
  },
  'PATCH /templates/:idOrAlias': { name: 'renamed' },
  'POST /api-keys': { name: 'k', permission: 'sending_access' },
  'PATCH /api-keys/:id': { name: 'renamed' },
  'POST /topics': { name: 'n', default_subscription: 'opt_in', description: 'd', visibility: 'public' },
  'PATCH /topics/:id': { name: 'renamed' },
  'POST /suppressions': { email: 'fuzz-s@example.test' },
  'POST /suppressions/batch/add': { emails: ['fuzz-a@example.test', 'fuzz-b@example.test'] },
  'POST /suppressions/batch/remove': { emails: ['fuzz-a@example.test'] },
  'POST /contacts': { email: 'fuzz-c@example.test', first_name: 'F', unsubscribed: false },
  'PATCH /contacts/:c': { first_name: 'G', last_name: null },
  'PATCH /contacts/:c/topics': [{ id: 'topic', subscription: 'opt_out' }],
  'POST /segments': { name: 'fuzz segment' },
  'PATCH /segments/:id': { name: 'renamed' },
  'POST /audiences': { name: 'fuzz audience' },
  'POST /audiences/:audienceId/contacts': { email: 'fuzz-aud@example.test' },
  'PATCH /audiences/:audienceId/contacts/:c': { first_name: 'H' },
  'POST /contact-properties': { key: 'fuzz_key', type: 'number', fallback_value: 1 },
  'PATCH /contact-properties/:id': { fallback_value: 'x' },
  'POST /broadcasts': {
    segment_id: 'segment',
    from: 'Acme <news@acme.test>',
    subject: 's',
    html: '<p>h</p>',
  },
  'PATCH /broadcasts/:id': { subject: 'renamed' },
  'POST /broadcasts/:id/send': { scheduled_at: 'in 3 hours' },
  'POST /events': { name: 'fuzz.event', schema: { plan: 'string', seats: 'number', at: 'date' } },
  'PATCH /events/:idOrName': { schema: { plan: 'string' } },
  'POST /automations': automationBody('fuzz', 'disabled', 'fuzz.event'),
  'PATCH /automations/:automationId': { name: 'renamed', status: 'disabled' },
  'POST /domains': {
    name: 'fuzz-1.example.test',
    region: 'eu-west-1',
    custom_return_path: 'bounce',
    capabilities: { sending: 'enabled', receiving: 'enabled' },
    open_tracking: true,
    click_tracking: false,
    tls: 'enforced',
  },
  'PATCH /domains/:id': { click_tracking: true, open_tracking: false, tls: 'opportunistic' },
  'POST /events/send': {
    event: 'fuzz.event',
    email: 'fuzz-e@example.test',
    payload: { plan: 'pro', seats: '2' },
  },
};

/** Bodies that name other resources get their ids once they exist. */
function validBody(route: string): unknown {
  const body = VALID[route] ?? {};
  if (route === 'PATCH /contacts/:c/topics') return [{ id: idOf('topics'), subscription: 'opt_out' }];
  if (route === 'POST /broadcasts') return { ...(body as object), segment_id: idOf('segments') };
  return body;
}

/**
 * Fewer runs on the routes that only store records: the send path gets the most. A domain costs
 * an RSA-2048 key pair (~0.1–0.8 s), a verification real DNS lookups, and routes that read no
 * body (stop, duplicate, verify, cancel, publish, rotate) need only a few.
 */
function runsFor(path: string): number {
  if (path.startsWith('/emails')) return 1_000;
  if (/\/(verify|stop|duplicate|publish|cancel|rotate)$/.test(path)) return 5;
  if (path.startsWith('/domains')) return 20;
  return 150;
}

/** Replace one value somewhere inside `body` by `value` (path chosen by `pick`). */
function mutate(body: unknown, value: unknown, pick: number): unknown {
  if (body === null || typeof body !== 'object') return value;
  const clone: Record<string, unknown> | unknown[] = Array.isArray(body) ? [...body] : { ...body };
  const keys = Object.keys(clone);
  if (keys.length === 0 || pick % 5 === 0) return value;
  const k = keys[pick % keys.length]!;
  (clone as Record<string, unknown>)[k] = mutate(
    (clone as Record<string, unknown>)[k],
    value,
    Math.floor(pick / 7),
  );
  return clone;
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('API input fuzz (R20)', () => {
  it('every body-reading route: arbitrary JSON and mutated valid bodies never get a 5xx', async () => {
    // link routes take forms from browsers and mail providers: fuzzed below
    const routes = stack.routes.filter(
      (r) => (r.method === 'POST' || r.method === 'PATCH') && !isLinkRoute(r.path),
    );
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const seen = new Map<string, number>();
    for (const { method, path } of routes) {
      const base = validBody(`${method} ${path}`);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue({ maxDepth: 4 }),
            fc.tuple(fc.jsonValue({ maxDepth: 2 }), fc.nat()).map(([v, p]) => mutate(base, v, p)),
          ),
          async (body) => {
            const res = await stack.http(fill(path), { method, body: JSON.stringify(body) });
            seen.set(`${res.status}`, (seen.get(`${res.status}`) ?? 0) + 1);
            if (res.status >= 500)
              throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${res.status}`);
            if (res.status >= 400)
              expect(res.body).toMatchObject({ statusCode: res.status, name: expect.any(String) });
            return true;
          },
        ),
        { numRuns: runsFor(path) },
      );
      expect((await stack.http('/health', { key: null })).status).toBe(200);
    }
    console.log(`R20: statuses ${JSON.stringify(Object.fromEntries(seen))}`);
    expect([...seen.keys()].some((s) => s.startsWith('2'))).toBe(true); // valid mutations got through too
  }, 600_000);

  it('unsubscribe links: any token, method and form body → a 4xx page or a 200, never a 5xx', async () => {
    const links = stack.routes.filter((r) => isLinkRoute(r.path));
    expect(links.length).toBeGreaterThanOrEqual(3);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...links),
        fc.oneof(fc.string(), fc.base64String(), fc.constant('e30.AAAA')),
        fc.oneof(
          fc.string(),
          fc.constant('List-Unsubscribe=One-Click'),
          fc.constant('topic=x&unsubscribe_all=1'),
        ),
        async ({ method, path }, token, body) => {
          const url = path.replace(':token', encodeURIComponent(token) || 'x');
          const res = await stack.http(url, {
            method,
            key: null,
            ...(method === 'GET'
              ? {}
              : { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
          });
          if (res.status >= 500) throw new Error(`${method} ${url} ${JSON.stringify(body)} → ${res.status}`);
          return true;
        },
      ),
      { numRuns: 500 },
    );
  }, 120_000);

  it('DELETE /emails/:id: any id → 404, never a 5xx; the team’s email is kept', async () => {
    expect(stack.routes).toContainEqual({ method: 'DELETE', path: '/emails/:id' });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.uuid(), fc.constantFrom('..%2F', '.', '..')), async (id) => {
        const url = `/emails/${encodeURIComponent(id) || 'x'}`;
        const res = await stack.http(url, { method: 'DELETE' });
        // '.' and '..' are dot segments: every WHATWG URL client (fetch, the SDK) resolves them
        // before sending (RFC 3986 §5.2.4): '.' names the collection /emails/, which has no
        // DELETE (405); '..' names /, which has no route (404)
        const expected = id === '.' ? 405 : 404;
        if (res.status !== expected)
          throw new Error(`DELETE ${url} → ${res.status} ${JSON.stringify(res.body)}`);
        return true;
      }),
      { numRuns: 300 },
    );
    expect((await stack.http(`/emails/${idOf('emails')}`)).status).toBe(200);
  }, 120_000);

  it('nasty bodies: deep nesting, a 1 MB subject, 101 emails, non-JSON — 4xx or accepted, never 5xx', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/emails', deep(10_000)],
      ['POST', '/emails/batch', deep(10_000)],
      ['POST', '/emails', deepObject(10_000)],
      ['POST', '/emails', JSON.stringify({ ...email(5), headers: JSON.parse(deepObject(500)) })],
      ['POST', '/emails', JSON.stringify({ ...email(6), subject: 'x'.repeat(1_000_000) })],
      ['POST', '/emails/batch', JSON.stringify(Array.from({ length: 101 }, (_, i) => email(i)))],
      ['POST', '/emails', '{"from": '],
      ['POST', '/emails', '\u0000\u0001'],
      ['PATCH', `/emails/${idOf('emails')}`, deep(10_000)],
      ['POST', '/templates', JSON.stringify({ name: 'n', html: 'x', variables: JSON.parse(deep(1_000)) })],
    ];
    for (const [method, path, body] of cases) {
      const res = await stack.http(path, { method, body });
      expect(res.status, `${method} ${path} ${body.slice(0, 40)}`).toBeLessThan(500);
      if (res.status >= 400) expect(res.body).toMatchObject({ statusCode: res.status });
    }
    expect((await stack.http('/health', { key: null })).status).toBe(200);
  }, 120_000);
});

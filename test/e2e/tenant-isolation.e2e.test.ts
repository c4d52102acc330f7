/**
 * Tenant isolation and key scopes, over every route of the API's router
 * (enumerated from the Express app, so a new route cannot be forgotten here):
 *  - team B's full-access key against team A's ids, on every method of every route with an id
 *    → 404 not_found, and afterwards A's resources are exactly as they were;
 *  - B's listings never show A's resources;
 *  - B's sending_access key on every route other than sending → 401 restricted_api_key;
 *  - a revoked key is refused on the very next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { ApiKeysStore } from '@petrel/store';
import { waitUntil } from '@petrel/testing';
import { email, startStack, type Stack } from './helpers.js';
import {
  createTeamResources,
  fillPath,
  isDashboardRoute,
  isLinkRoute,
  type TeamResources,
} from './team-resources.js';

let stack: Stack;
let b: { full: string; sending: string; store: ApiKeysStore; team: string };
/** Team A's resources: one of each, so every id-bearing route has an id of A's to try. */
let a: TeamResources;

beforeAll(async () => {
  stack = await startStack();
  const store = new ApiKeysStore(stack.admin, stack.keys);
  const team = await store.createTeam('team-b');
  b = {
    full: (await store.create(team, { name: 'b-full' })).token,
    sending: (await store.create(team, { name: 'b-send', permission: 'sending_access' })).token,
    store,
    team,
  };
  a = await createTeamResources(stack, 'team-a');
});
afterAll(async () => {
  await stack?.stop();
});

const idOf = (owner: string): string => a.ids[owner]![0]!;

/** A's state, as A sees it. */
async function snapshotA() {
  const get = async (path: string) => (await stack.http(path)).body;
  return {
    email: await get(`/emails/${idOf('emails')}`),
    template: await get(`/templates/${idOf('templates')}`),
    keys: await get('/api-keys'),
    templates: await get('/templates'),
    contact: await get(`/contacts/${idOf('contacts')}`),
    contactTopics: await get(`/contacts/${idOf('contacts')}/topics`),
    contacts: await get('/contacts'),
    segments: await get('/segments'),
    topics: await get('/topics'),
    properties: await get('/contact-properties'),
    suppressions: await get('/suppressions'),
    events: await get('/events'),
    automation: await get(`/automations/${idOf('automations')}`),
    runs: await get(`/automations/${idOf('automations')}/runs`),
    domain: await get(`/domains/${idOf('domains')}`),
    grants: await get('/oauth/grants'),
    ...(a.ids.broadcasts ? { broadcast: await get(`/broadcasts/${idOf('broadcasts')}`) } : {}),
  };
}

const PLAUSIBLE_BODY: Record<string, unknown> = {
  'PATCH /emails/:id': { scheduled_at: 'in 3 hours' },
  'PATCH /templates/:idOrAlias': { name: 'taken over' },
  'PATCH /api-keys/:id': { name: 'taken over' },
  'PATCH /contacts/:c': { first_name: 'taken over', unsubscribed: true },
  'PATCH /audiences/:audienceId/contacts/:c': { first_name: 'taken over' },
  'POST /audiences/:audienceId/contacts': { email: 'intruder@example.test' },
  'PATCH /segments/:id': { name: 'taken over' },
  'PATCH /topics/:id': { name: 'taken over' },
  'PATCH /contact-properties/:id': { fallback_value: 'taken over' },
  'PATCH /broadcasts/:id': { subject: 'taken over' },
  'PATCH /events/:idOrName': { schema: null },
  'PATCH /automations/:automationId': { name: 'taken over', status: 'disabled' },
  'PATCH /domains/:id': { open_tracking: true },
};

/** PATCH /contacts/:c/topics takes a list naming A's topic. */
const bodyFor = (method: string, path: string): unknown =>
  path === '/contacts/:c/topics' && method === 'PATCH'
    ? [{ id: idOf('topics'), subscription: 'opt_out' }]
    : (PLAUSIBLE_BODY[`${method} ${path}`] ?? (method === 'GET' || method === 'DELETE' ? undefined : {}));

const fill = (path: string): string[] => fillPath(path, a);

describe('tenant isolation and key scopes (R19)', () => {
  it('enumerates the routes it checks', () => {
    const names = stack.routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of [
      'POST /emails/batch',
      'POST /emails',
      'GET /emails/:id',
      'PATCH /emails/:id',
      'DELETE /emails/:id',
      'POST /emails/:id/cancel',
      'GET /templates/:idOrAlias',
      'POST /templates/:idOrAlias/publish',
      'DELETE /api-keys/:id',
    ])
      expect(names).toContain(expected);
  });

  it("another team's full-access key gets 404 for every id-bearing route and changes nothing", async () => {
    const before = await snapshotA();
    const tried: string[] = [];
    for (const { method, path } of stack.routes.filter((r) => r.path.includes(':') && !isLinkRoute(r.path))) {
      for (const url of fill(path)) {
        const body = bodyFor(method, path);
        const res = await stack.http(url, {
          method,
          key: b.full,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        tried.push(`${method} ${url} → ${res.status}`);
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(404);
        expect(res.body).toMatchObject({ statusCode: 404, name: 'not_found' });
      }
    }
    expect(tried.length).toBeGreaterThanOrEqual(40);
    expect(await snapshotA()).toEqual(before);
    // B's own listings hold nothing of A's (and the duplicate route created nothing for B)
    const bList = async (path: string) =>
      (await stack.http(path, { key: b.full })).body as { data: { id: string }[] };
    expect((await bList('/emails')).data.map((x) => x.id)).not.toContain(idOf('emails'));
    expect((await bList('/api-keys')).data.map((x) => x.id)).not.toContain(idOf('api-keys'));
    expect((await bList('/logs?limit=100')).data.map((x) => x.id)).not.toContain(idOf('logs'));
    // B's metrics never count A's email or broadcast: their ids name nothing of B's
    const metricsOf = async (q: string) => (await stack.http(`/emails/metrics?${q}`, { key: b.full })).body;
    expect((await metricsOf(`dimensions=email&email_id=${idOf('emails')}`)).data).toEqual([]);
    if (a.ids.broadcasts)
      expect((await metricsOf(`dimensions=broadcast&broadcast_id=${idOf('broadcasts')}`)).data).toEqual([]);
    for (const list of [
      '/templates',
      '/contacts',
      '/segments',
      '/topics',
      '/contact-properties',
      '/suppressions',
      '/events',
      '/automations',
      '/domains',
      '/oauth/grants',
    ])
      expect((await bList(list)).data, list).toEqual([]);
  });

  it('a sending_access key may only send: every other route → 401 restricted_api_key', async () => {
    // probes, and the icon browsers fetch before any sign-in: no key needed
    const PUBLIC = new Set(['GET /health', 'GET /ready', 'GET /favicon.ico']);
    // the dashboard's files and sign-in take no key (test/e2e/dashboard-api.e2e.test.ts covers them)
    const keyed = stack.routes.filter(
      (r) => !PUBLIC.has(`${r.method} ${r.path}`) && !isLinkRoute(r.path) && !isDashboardRoute(r.path),
    );
    for (const { method, path } of keyed) {
      const url = path.includes(':') ? fill(path)[0]! : path;
      const sending = method === 'POST' && (path === '/emails' || path === '/emails/batch');
      const body = path === '/emails' ? email(2) : path === '/emails/batch' ? [email(3)] : {};
      const res = await stack.http(url, {
        method,
        key: b.sending,
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: JSON.stringify(body) }),
      });
      if (sending) expect(res.status, `${method} ${path}`).toBe(200);
      else {
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body).toMatchObject({ name: 'restricted_api_key' });
      }
    }
  });

  it('an Idempotency-Key is scoped to its team: the same key and body from B is an independent send', async () => {
    const body = { ...email(7), subject: 'same key, two teams' };
    const fromA = await stack.resend.emails.send(body as never, { idempotencyKey: 'shared-key' });
    const fromB = await new Resend(b.full, { baseUrl: stack.baseUrl }).emails.send(body as never, {
      idempotencyKey: 'shared-key',
    });
    expect(fromA.error).toBeNull();
    expect(fromB.error).toBeNull();
    expect(fromB.data!.id).not.toBe(fromA.data!.id);
    const copies = (id: string) => stack.sink.byMessageId(`<${id}@acme.test>`).length;
    await waitUntil(() => copies(fromA.data!.id) > 0 && copies(fromB.data!.id) > 0, { timeoutMs: 10_000 });
    const both = [copies(fromA.data!.id), copies(fromB.data!.id)];
    expect(both).toEqual([1, 1]);
  });

  it('a revoked key is refused on the next request', async () => {
    const { id, token } = await b.store.create(b.team, { name: 'short-lived' });
    const client = new Resend(token, { baseUrl: stack.baseUrl });
    expect((await client.emails.list()).error).toBeNull();
    expect((await new Resend(b.full, { baseUrl: stack.baseUrl }).apiKeys.remove(id)).error).toBeNull();
    expect((await client.emails.list()).error).toMatchObject({ statusCode: 403, name: 'invalid_api_key' });
  });
});

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
import { ApiKeysStore, Keys, createRedis } from '@petrel/store';
import { waitUntil } from '@petrel/testing';
import { email, startStack, type Stack } from './helpers.js';

let stack: Stack;
let b: { full: string; sending: string; store: ApiKeysStore; team: string };
let close: () => Promise<unknown>;
const a = { email: '', template: '', key: '' };

beforeAll(async () => {
  stack = await startStack();
  const r = createRedis(stack.redis.url);
  close = () => r.quit();
  const store = new ApiKeysStore(r, new Keys(stack.prefix));
  const team = await store.createTeam('team-b');
  b = {
    full: (await store.create(team, { name: 'b-full' })).token,
    sending: (await store.create(team, { name: 'b-send', permission: 'sending_access' })).token,
    store,
    team,
  };
  // Team A's resources: a scheduled email (so PATCH and cancel would act), a published
  // template with an alias, and an API key.
  const sent = await stack.resend.emails.send({ ...email(1), scheduledAt: 'in 2 hours' } as never);
  a.email = sent.data!.id;
  const tpl = await stack.resend.templates.create({
    name: 'a-template',
    alias: 'a-alias',
    subject: 'Hi',
    html: '<p>{{{NAME}}}</p>',
    variables: [{ key: 'NAME', type: 'string', fallbackValue: 'x' }],
  });
  a.template = tpl.data!.id;
  expect((await stack.resend.templates.publish(a.template)).error).toBeNull();
  a.key = (await stack.resend.apiKeys.create({ name: 'a-extra' })).data!.id;
});
afterAll(async () => {
  await close?.();
  await stack?.stop();
});

/** A's state, as A sees it. */
async function snapshotA() {
  return {
    email: (await stack.http(`/emails/${a.email}`)).body,
    template: (await stack.http(`/templates/${a.template}`)).body,
    keys: (await stack.http('/api-keys')).body,
    templates: (await stack.http('/templates')).body,
  };
}

const PLAUSIBLE_BODY: Record<string, unknown> = {
  'PATCH /emails/:id': { scheduled_at: 'in 3 hours' },
  'PATCH /templates/:idOrAlias': { name: 'taken over' },
  'PATCH /api-keys/:id': { name: 'taken over' },
};

function fill(path: string): string[] {
  if (path.includes(':idOrAlias'))
    return [path.replace(':idOrAlias', a.template), path.replace(':idOrAlias', 'a-alias')];
  if (path.startsWith('/emails/:id')) return [path.replace(':id', a.email)];
  if (path.startsWith('/api-keys/:id')) return [path.replace(':id', a.key)];
  throw new Error(`no team-A id known for the route ${path}: add it to this test`);
}

describe('tenant isolation and key scopes (R19)', () => {
  it('enumerates the routes it checks', () => {
    const names = stack.routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of [
      'POST /emails/batch',
      'POST /emails',
      'GET /emails/:id',
      'PATCH /emails/:id',
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
    for (const { method, path } of stack.routes.filter((r) => r.path.includes(':'))) {
      for (const url of fill(path)) {
        const body =
          PLAUSIBLE_BODY[`${method} ${path}`] ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
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
    expect(tried.length).toBeGreaterThanOrEqual(10);
    expect(await snapshotA()).toEqual(before);
    // B's own listings hold nothing of A's (and the duplicate route created nothing for B)
    const bList = async (path: string) =>
      (await stack.http(path, { key: b.full })).body as { data: { id: string }[] };
    expect((await bList('/emails')).data.map((x) => x.id)).not.toContain(a.email);
    expect((await bList('/templates')).data).toEqual([]);
    expect((await bList('/api-keys')).data.map((x) => x.id)).not.toContain(a.key);
  });

  it('a sending_access key may only send: every other route → 401 restricted_api_key', async () => {
    const PUBLIC = new Set(['GET /health', 'GET /ready']); // probes, no key needed
    for (const { method, path } of stack.routes.filter((r) => !PUBLIC.has(`${r.method} ${r.path}`))) {
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

/**
 * The Express app over stand-in stores: route order in the router (fixed paths before the
 * parameterised siblings that would match them), 404 / 405, and the sending_access scope.
 * Use-cases are tested in packages/core; the stores behind them in packages/store.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import type { AppDeps } from './app.js';
import { createApp } from './app.js';
import { isParamSegment, type RouteSpec } from './routes/route-table.js';
import { templatesRoutes } from './routes/templates.routes.js';

const KEYS: Record<string, { teamId: string; keyId: string; permission: 'full_access' | 'sending_access' }> =
  {
    full: { teamId: 'team', keyId: 'k1', permission: 'full_access' },
    sending: { teamId: 'team', keyId: 'k2', permission: 'sending_access' },
  };

/** A fixed route a later feature adds after the defaults (the shape of GET /emails/receiving). */
const receiving: RouteSpec = {
  path: '/emails/receiving',
  methods: { get: (_req, res) => void res.json({ object: 'list', data: [] }) },
};

function app(extraRoutes: RouteSpec[] = []): Express {
  const unused = () => {
    throw new Error('not used by this test');
  };
  const deps = {
    apiKeys: { authenticate: async (token: string) => KEYS[token] ?? null },
    emails: { getWithEvents: async () => null, list: unused },
    queues: {},
    accept: {},
    ready: async () => true,
    bodyLimitBytes: 1024,
    batchBodyLimitBytes: 1024,
    extraRoutes: [...templatesRoutes({ get: async () => null } as never), ...extraRoutes],
  } as unknown as AppDeps;
  return createApp(deps);
}

interface Layer {
  route?: { path: string };
  handle?: { stack?: Layer[] };
}

/** Route paths in the order Express tries them (nested routers walked in place). */
function routeOrder(express: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[] = []) => {
    for (const layer of stack) {
      if (layer.route) out.push(layer.route.path);
      else walk(layer.handle?.stack);
    }
  };
  walk((express as unknown as { router: { stack: Layer[] } }).router.stack);
  return out;
}

/** Could `pattern` (with :params) match the fixed path `fixed`? */
function shadows(pattern: string, fixed: string): boolean {
  const p = pattern.split('/');
  const f = fixed.split('/');
  return p.length === f.length && p.every((seg, i) => isParamSegment(seg) || seg === f[i]);
}

describe('route order', () => {
  it.each([
    ['the default routes', []],
    ['with a fixed route added after them', [receiving]],
  ])('%s: every fixed path comes before each parameterised path that would match it', (_name, extra) => {
    const order = routeOrder(app(extra));
    expect(order.length).toBeGreaterThanOrEqual(8);
    for (const [i, fixed] of order.entries()) {
      if (fixed.split('/').some(isParamSegment)) continue;
      const earlier = order.slice(0, i).filter((p) => p !== fixed && shadows(p, fixed));
      expect(earlier, `${fixed} is shadowed by ${earlier.join(', ')}`).toEqual([]);
    }
  });

  it('lists the resource routes', () => {
    expect(routeOrder(app())).toEqual(
      expect.arrayContaining([
        '/emails',
        '/emails/batch',
        '/emails/:id',
        '/emails/:id/cancel',
        '/api-keys',
        '/api-keys/:id',
        '/templates',
        '/templates/:idOrAlias',
        '/templates/:idOrAlias/publish',
        '/templates/:idOrAlias/duplicate',
      ]),
    );
  });
});

describe('the app over HTTP', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer(app([receiving]));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const call = async (method: string, path: string, key: string | null = 'full') => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    return { status: res.status, allow: res.headers.get('allow'), body: (await res.json()) as unknown };
  };

  it('answers a fixed path with its own route, not the parameterised sibling', async () => {
    expect(await call('GET', '/emails/receiving')).toMatchObject({ status: 200, body: { object: 'list' } });
    expect(await call('GET', '/emails/0190a6b2-7c3d-7000-8000-000000000001')).toMatchObject({
      status: 404,
      body: { name: 'not_found', message: 'Email not found' },
    });
  });

  it('answers an unserved method with 405 and Allow, and an unknown path with 404', async () => {
    expect(await call('DELETE', '/emails/receiving')).toMatchObject({ status: 405, allow: 'GET' });
    expect(await call('PUT', '/emails/x')).toMatchObject({ status: 405, allow: 'GET, PATCH, DELETE' });
    expect(await call('GET', '/nothing-here')).toMatchObject({ status: 404, body: { name: 'not_found' } });
  });

  it('keeps a sending_access key to POST /emails and /emails/batch, and asks every request for a key', async () => {
    expect(await call('GET', '/emails/x', 'sending')).toMatchObject({
      status: 401,
      body: { name: 'restricted_api_key' },
    });
    expect(await call('GET', '/templates/x', 'sending')).toMatchObject({ status: 401 });
    expect(await call('GET', '/emails/x', null)).toMatchObject({
      status: 401,
      body: { name: 'missing_api_key' },
    });
    expect(await call('GET', '/emails/x', 'revoked')).toMatchObject({
      status: 403,
      body: { name: 'invalid_api_key' },
    });
  });
});

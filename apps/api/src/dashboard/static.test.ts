import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CspReports, setDashboardSecurityHeaders } from './csp.js';
import { dashboardStatic } from './static.js';

let dist: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'petrel-dashboard-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Petrel</title>');
  writeFileSync(join(dist, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
  writeFileSync(join(dist, 'favicon.svg'), '<svg/>');
  const app = express();
  app.use('/dashboard', (_req, res, next) => {
    setDashboardSecurityHeaders(res);
    next();
  });
  app.use(dashboardStatic(dist));
  app.use(express.static(tmpdir())); // nothing outside dist may be reached through /dashboard
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dist, { recursive: true, force: true });
});

describe('dashboard static files', () => {
  it.each([
    ['/dashboard', 200, 'no-cache', 'Petrel'],
    ['/dashboard/', 200, 'no-cache', 'Petrel'],
    ['/dashboard/emails/0190-abc', 200, 'no-cache', 'Petrel'],
    ['/dashboard/assets/app-1a2b3c.js', 200, 'public, max-age=31536000, immutable', 'console.log(1)'],
    ['/dashboard/favicon.svg', 200, 'no-cache', '<svg/>'],
    ['/dashboard/assets/gone-000000.js', 404, null, null],
    ['/dashboard/assets/..%2f..%2fetc%2fpasswd', 404, null, null],
  ])('GET %s → %i', async (path, status, cache, text) => {
    const res = await fetch(`${base}${path}`);
    const body = await res.text();
    expect(res.status).toBe(status);
    if (cache) expect(res.headers.get('cache-control')).toBe(cache);
    if (text) expect(body).toContain(text);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it("answers /favicon.ico with the app's SVG icon", async () => {
    const res = await fetch(`${base}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toBe('<svg/>');
  });

  it('answers a plain 404 page when the app is not built', async () => {
    const app = express();
    app.use(dashboardStatic(join(dist, 'nope')));
    const s = createServer(app);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/dashboard/emails`);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/not built/);
    // nor does the icon fall through to the routes after it
    const icon = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/favicon.ico`);
    expect(icon.status).toBe(404);
    expect(icon.headers.get('content-type')).toMatch(/^text\/plain/);
    await new Promise((r) => s.close(r));
  });
});

describe('CspReports', () => {
  it('keeps the last reports only', () => {
    const reports = new CspReports(3);
    for (let i = 0; i < 5; i++) reports.add({ i }, new Date(i));
    expect(reports.list().map((r) => r.report)).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }]);
  });
});

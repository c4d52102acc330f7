// Small helpers shared by the harness: time, ports, percentiles, formatting, HTTP.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { freePort } from '@petrel/testing/free-port';

export const now = () => performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A free loopback port below the kernel's ephemeral range (the tests' own pick: free-port.ts). */
export { freePort };

/**
 * An HTTP receiver on a free loopback port (its `url` ends in /hook): `onRequest(req, body)`
 * gives the status of each request, read in full; a 2xx is answered `ok`, any other `no`.
 */
export async function startHttpReceiver(onRequest) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const status = onRequest(req, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'no');
    });
  });
  server.keepAliveTimeout = 30_000;
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** Polls `fn` until it returns a truthy value; throws with `what` after `timeoutMs`. */
export async function waitUntil(fn, { timeoutMs = 15_000, intervalMs = 50, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastErr;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? `: ${lastErr.message}` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
}

/** Percentile (0–100) of an ascending-sorted numeric array; nearest-rank. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * The median run of repeated measurements (by `key`; the lower middle one for an even count), with
 * every repetition's value and the spread ((max − min) / median, %) attached.
 */
export function medianRun(runs, key = 'emails_per_s') {
  const sorted = [...runs].sort((a, b) => (a[key] ?? 0) - (b[key] ?? 0));
  const mid = sorted[Math.floor((sorted.length - 1) / 2)];
  const vals = runs.map((r) => r[key]);
  const spread = mid[key] ? round(((Math.max(...vals) - Math.min(...vals)) / mid[key]) * 100, 0) : null;
  return { ...mid, reps: vals, spread_pct: spread };
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return percentile(s, 50);
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Minimal JSON over HTTP (node:http, keep-alive): resolves { status, body, text }. */
export function httpJson(method, url, { body, headers = {}, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent: keepAlive,
        headers: {
          ...(payload !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
          ...headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode, body: parsed, text });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`HTTP ${method} ${url} timed out`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export async function httpText(url, timeoutMs = 5_000) {
  const res = await httpJson('GET', url, { timeoutMs });
  return res.text;
}

/** Runs `fn(i)` for i in [0, n) with at most `limit` in flight. */
export async function mapLimit(n, limit, fn) {
  let next = 0;
  const results = new Array(n);
  const lanes = Array.from({ length: Math.min(limit, n) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      results[i] = await fn(i);
    }
  });
  await Promise.all(lanes);
  return results;
}

// ---------- formatting ----------

export function fmtInt(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

export function fmtNum(n, digits = 1) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  return n.toFixed(digits);
}

export function fmtRatio(r) {
  if (r === null || r === undefined || Number.isNaN(r) || !Number.isFinite(r)) return '–';
  return `${r.toFixed(2)}×`;
}

export function round(n, digits = 1) {
  if (n === null || n === undefined || Number.isNaN(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function ratio(a, b) {
  if (!a || !b) return null;
  return round(a / b, 3);
}

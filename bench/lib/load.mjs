// Load generation: autocannon against a batch endpoint (ingest, mixed) and a plain batch poster
// (queue fills). Runs inside the bench process; its CPU shows as "bench" in the tables.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { httpJson, mapLimit, now, round } from './util.mjs';

/**
 * autocannon POSTing `bodies` (JSON strings, rotated) to `${api.url}/emails/batch`.
 * `idempotentHalf`: every other request carries a fresh Idempotency-Key. `overallRate`: requests
 * per second across all connections (unset = as fast as possible).
 */
export async function cannon(
  api,
  { bodies, perRequest, durationS, connections = 10, idempotentHalf = false, overallRate },
) {
  let counter = 0;
  const tag = randomUUID().slice(0, 8);
  let firstError;
  let firstErrorStatus;
  const instance = autocannon({
    url: `${api.url}/emails/batch`,
    method: 'POST',
    connections,
    pipelining: 1,
    duration: durationS,
    timeout: 30,
    ...(overallRate ? { overallRate } : {}),
    headers: { 'content-type': 'application/json', ...api.headers },
    requests: [
      {
        setupRequest: (req) => {
          const i = counter++;
          const headers = { ...req.headers };
          if (idempotentHalf && i % 2 === 1) headers['idempotency-key'] = `bench-${tag}-${i}`;
          return { ...req, headers, body: bodies[i % bodies.length] };
        },
        onResponse: (status, body) => {
          if (status >= 300 && firstError === undefined) {
            firstErrorStatus = status;
            firstError = String(body).slice(0, 300);
          }
        },
      },
    ],
  });
  const r = await instance;
  const ok = r['2xx'];
  const seconds = r.duration;
  return {
    requests: r.requests.total,
    ok,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    seconds: round(seconds, 2),
    req_per_s: round(ok / seconds, 1),
    emails_per_s: round((ok * perRequest) / seconds, 0),
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    ...(firstError !== undefined ? { first_error: `${firstErrorStatus} ${firstError}` } : {}),
  };
}

/** POSTs `n` emails in batches of `batchSize`, `concurrency` batches in flight. */
export async function postBatches(api, { n, batchSize = 100, concurrency = 4, emailAt, withIds = false }) {
  const batches = Math.ceil(n / batchSize);
  const t0 = now();
  const results = await mapLimit(batches, concurrency, async (b) => {
    const start = b * batchSize;
    const body = [];
    for (let i = start; i < Math.min(n, start + batchSize); i++) body.push(emailAt(i));
    const res = await httpJson('POST', `${api.url}/emails/batch`, { body, headers: api.headers });
    if (res.status !== 200) throw new Error(`POST /emails/batch → ${res.status}: ${res.text.slice(0, 400)}`);
    return res.body.data.map((d) => d.id);
  });
  const seconds = (now() - t0) / 1000;
  const ids = results.flat();
  const accepted = ids.length;
  return {
    accepted,
    seconds: round(seconds, 2),
    emails_per_s: round(accepted / seconds, 0),
    ...(withIds ? { ids } : {}),
  };
}

// Phase 7 — contacts import. A CSV of N contacts (email, first and last name, a string property)
// is streamed through POST /contacts/imports (multipart, chunked, no Content-Length: the file
// is generated while it is sent, never held by the bench either) into the API, which streams it
// into Redis; one worker process imports it. Reported per size: rows/s from the 201 to
// `completed` (and end to end, upload included), and the peak RSS of the importing worker and of
// the API, sampled every 100 ms. The point is flat memory: the worker reads one 256 KiB chunk and
// one batch of 1,000 rows at a time, so the peak at 1,000,000 rows must stay within 20 % of the
// peak at 100,000 (`met`). Petrel only: the raw stack has no imports.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { startPetrelApi, startPetrelWorkers, API_KEY } from '../lib/stacks.mjs';
import { fmtInt, httpJson, now, round, sleep } from '../lib/util.mjs';

export const name = 'contacts-import';
export const order = 70;
export const title =
  'Contacts import: rows/s and flat worker memory, 100k vs 1M rows streamed through the API';

/** Sizes (rows) per run: the first is the reference for the memory check. */
const SIZES = { full: [100_000, 1_000_000], quick: [2_000, 10_000] };
/** Peak RSS at the largest size may exceed the smallest size's by this much. */
const RSS_TOLERANCE = 0.2;

/** Resident set size of `pid` in bytes, or null when it is gone. */
function rssBytes(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples the peak RSS of `pids` every `ms` until stopped. */
function rssSampler(pids, ms = 100) {
  const peak = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  const sample = () => {
    for (const [k, pid] of Object.entries(pids)) peak[k] = Math.max(peak[k], rssBytes(pid) ?? 0);
  };
  sample();
  const timer = setInterval(sample, ms);
  return {
    peak,
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** The multipart body, generated row by row as it is sent. */
async function* multipart(boundary, rows) {
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\n` +
      'Content-Type: text/csv\r\n\r\nemail,first_name,last_name,plan\r\n',
  );
  const plans = ['free', 'pro', 'team'];
  for (let at = 0; at < rows; at += 10_000) {
    let text = '';
    for (let i = at; i < Math.min(rows, at + 10_000); i++)
      text += `user${i}@bench.example,First${i},Last ${i % 977},${plans[i % 3]}\r\n`;
    yield Buffer.from(text);
  }
  const columnMap = JSON.stringify({ properties: { plan: { column: 'plan' } } });
  yield Buffer.from(
    `\r\n--${boundary}\r\nContent-Disposition: form-data; name="column_map"\r\n\r\n${columnMap}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="on_conflict"\r\n\r\nupsert\r\n--${boundary}--\r\n`,
  );
}

/** POST /contacts/imports with a streamed body; resolves to { status, body, bytes }. */
function postImport(url, rows) {
  const boundary = `bench-${randomBytes(6).toString('hex')}`;
  return new Promise((resolve, reject) => {
    let bytes = 0;
    const req = request(
      `${url}/contacts/imports`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${API_KEY}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text || 'null'), bytes }));
      },
    );
    req.on('error', reject);
    (async () => {
      for await (const chunk of multipart(boundary, rows)) {
        bytes += chunk.length;
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    })().catch(reject);
  });
}

async function importOnce(ctx, rows) {
  await ctx.redis.reset();
  const api = await startPetrelApi(ctx);
  const workers = await startPetrelWorkers(ctx, 1);
  try {
    await workers.ready();
    const prop = await httpJson('POST', `${api.url}/contact-properties`, {
      headers: api.headers,
      body: { key: 'plan', type: 'string' },
    });
    if (prop.status !== 201) throw new Error(`POST /contact-properties: ${prop.status} ${prop.text}`);
    const worker = workers.children[0];
    const sampler = rssSampler({ worker: worker.pid, api: api.child.pid });
    const baseRss = { worker: rssBytes(worker.pid), api: rssBytes(api.child.pid) };
    const t0 = now();
    const posted = await postImport(api.url, rows);
    if (posted.status !== 201)
      throw new Error(`POST /contacts/imports: ${posted.status} ${JSON.stringify(posted.body)}`);
    const tUploaded = now();
    const id = posted.body.id;
    let view;
    let lastShown = 0;
    for (;;) {
      const res = await httpJson('GET', `${api.url}/contacts/imports/${id}`, { headers: api.headers });
      view = res.body;
      if (view.status === 'completed' || view.status === 'failed') break;
      if (now() - lastShown >= 2000) {
        lastShown = now();
        const done = view.counts?.total ?? 0;
        const secs = (now() - tUploaded) / 1000;
        ctx.progress(
          `  ${fmtInt(rows)} rows: ${view.status} ${fmtInt(done)} (${Math.round((100 * done) / rows)} %), ` +
            `${fmtInt(done / Math.max(secs, 0.001))} rows/s, worker RSS ${fmtInt(rssBytes(worker.pid) / 2 ** 20)} MiB`,
        );
      }
      await sleep(200);
    }
    const tDone = now();
    const peak = sampler.stop();
    if (view.status !== 'completed') throw new Error(`import ${id} ${view.status}: ${view.error}`);
    if (view.counts.total !== rows || view.counts.created + view.counts.updated !== rows)
      throw new Error(`import ${id}: counts ${JSON.stringify(view.counts)} for ${rows} rows`);
    const importSeconds = (Date.parse(view.completed_at) - Date.parse(view.created_at)) / 1000;
    const result = {
      rows,
      file_mib: round(posted.bytes / 2 ** 20, 1),
      upload_s: round((tUploaded - t0) / 1000, 2),
      import_s: round(importSeconds, 2),
      total_s: round((tDone - t0) / 1000, 2),
      rows_per_s: Math.round(rows / importSeconds),
      end_to_end_rows_per_s: Math.round(rows / ((tDone - t0) / 1000)),
      worker_rss_mib: { start: round(baseRss.worker / 2 ** 20, 1), peak: round(peak.worker / 2 ** 20, 1) },
      api_rss_mib: { start: round(baseRss.api / 2 ** 20, 1), peak: round(peak.api / 2 ** 20, 1) },
      redis_used_mib: round(
        Number(/used_memory:(\d+)/.exec(await ctx.redis.client.info('memory'))?.[1] ?? 0) / 2 ** 20,
        1,
      ),
    };
    ctx.progress(
      `  ${fmtInt(rows)} rows (${result.file_mib} MiB): upload ${result.upload_s} s, import ${result.import_s} s ` +
        `= ${fmtInt(result.rows_per_s)} rows/s; peak RSS worker ${result.worker_rss_mib.peak} MiB ` +
        `(start ${result.worker_rss_mib.start}), API ${result.api_rss_mib.peak} MiB; Redis ${result.redis_used_mib} MiB`,
    );
    return result;
  } finally {
    await workers.stop();
    await api.stop();
  }
}

export async function run(ctx) {
  const sizes = ctx.opts.quick ? SIZES.quick : SIZES.full;
  const runs = [];
  try {
    for (const rows of sizes) runs.push(await importOnce(ctx, rows));
  } finally {
    await ctx.redis.reset(); // a million contacts need not stay for the next phase
  }
  const small = runs[0];
  const large = runs[runs.length - 1];
  const growth = large.worker_rss_mib.peak / small.worker_rss_mib.peak - 1;
  return {
    sizes,
    runs,
    worker_rss_growth: round(growth, 3),
    rss_flat: growth <= RSS_TOLERANCE,
    unit: 'rows/s',
  };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  const out = r.runs.map((x) => ({
    phase: 'contacts-import',
    metric: `rows/s importing ${fmtInt(x.rows)} contacts (${x.file_mib} MiB CSV, 1 worker)`,
    petrel: `${fmtInt(x.rows_per_s)} (end to end ${fmtInt(x.end_to_end_rows_per_s)})`,
    baseline: '',
    ratio: null,
    target: `peak RSS worker ${x.worker_rss_mib.peak} MiB, API ${x.api_rss_mib.peak} MiB`,
  }));
  const small = r.runs[0];
  const large = r.runs[r.runs.length - 1];
  out.push({
    phase: 'contacts-import',
    metric: `worker peak RSS, ${fmtInt(large.rows)} vs ${fmtInt(small.rows)} rows`,
    petrel: `${large.worker_rss_mib.peak} vs ${small.worker_rss_mib.peak} MiB (${r.worker_rss_growth >= 0 ? '+' : ''}${round(100 * r.worker_rss_growth, 1)} %)`,
    baseline: '',
    ratio: null,
    target: `flat: within ${RSS_TOLERANCE * 100} %`,
    met: r.rss_flat,
  });
  return out;
}

#!/usr/bin/env node
// `npm run bench` — Petrel against the raw stack it is built on, side by side in one run, on the
// same redis-server (AOF everysec) and the same SMTP sink (its own process). See bench/README.md.
//
//   npm run bench                       all phases, full size (~10 minutes)
//   npm run bench -- --quick            every phase, tiny (CI smoke: proves the bench works)
//   npm run bench -- --phase delivery   one phase (comma-separate several)
//   npm run bench -- --phase cluster    Petrel on a 1- and a 3-master Redis Cluster vs the single node
//   npm run bench -- --phase contacts-import   CSV imports of 100k and 1M contacts: rows/s, flat worker RSS
//   npm run bench -- --phase fanout     a broadcast to 100k and 1M contacts: contacts→send jobs/s vs raw addBulk, scheduler RSS
//   npm run bench -- --phase lanes      transactional accept→250 p99 while a 100k broadcast drains vs alone
//   npm run bench -- --phase webhooks   signed webhook deliveries/s vs a bare BullMQ + standardwebhooks worker; event→delivery p99
//   npm run bench -- --phase smtp       SMTP submission messages/s (pooled, authenticated) vs the same through POST /emails
//   npm run bench -- --phase dashboard  email list page p99 (first, next, filtered pages) at 1M emails vs 10k; SPA bundle gzip size
//   npm run bench -- --phase dkim       delivery DKIM-signed (RSA-2048) vs nodemailer's DKIM, and vs unsigned Petrel
//   npm run bench -- --profile worker   write --cpu-prof profiles of Petrel workers (api, worker,
//                                       baseline-api, baseline-worker or all) under the run's dir
//   other flags: --n 20000 --reps 3 --ingest-seconds 10 --mixed-seconds 10 --mixed-rate 1000
//                --concurrency 50 --pool 20 --skip-baseline --write-latest --list
//                --wait-quiet <s>  wait up to s seconds for other load on the machine to stop
//
// A phase is one file in bench/phases/ exporting { name, order, title, run(ctx), rows(result) }
// and optionally toJson(result); it is picked up automatically.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { installExitHandlers, liveChildren, setLogDir } from './lib/proc.mjs';
import { startRedis } from './lib/redis.mjs';
import { startSink } from './lib/sink-client.mjs';
import { backgroundLoad, machineInfo } from './lib/cpu.mjs';
import { petrelBuilt, ROOT } from './lib/stacks.mjs';
import { CPU_LEGEND, machineLine, markdownTable } from './lib/report.mjs';
import { now } from './lib/util.mjs';

const BENCH = fileURLToPath(new URL('.', import.meta.url));

/** The comment block at the top of this file. */
function helpText() {
  const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8')
    .split('\n')
    .slice(1);
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return lines.slice(0, end).join('\n') + '\n';
}

/** The options that take a positive number: flag → field of the parsed options. */
const NUMBER_FLAGS = new Map([
  ['--n', 'n'],
  ['--reps', 'reps'],
  ['--ingest-seconds', 'ingestSeconds'],
  ['--mixed-seconds', 'mixedSeconds'],
  ['--mixed-rate', 'mixedRate'],
  ['--concurrency', 'concurrency'],
  ['--pool', 'pool'],
  ['--wait-quiet', 'waitQuiet'],
]);

function parseArgs(argv) {
  const o = {
    quick: false,
    phases: null,
    n: 20_000,
    reps: 3,
    ingestSeconds: 10,
    mixedSeconds: 10,
    mixedRate: undefined,
    concurrency: 50,
    pool: 20,
    profile: undefined,
    skipBaseline: false,
    writeLatest: undefined,
    list: false,
    waitQuiet: 0,
  };
  const num = (v, flag) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
    return n;
  };
  const set = new Set();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes('=')
      ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
      : [a, undefined];
    const val = () => inline ?? argv[++i];
    const field = NUMBER_FLAGS.get(flag);
    if (field) {
      o[field] = num(val(), flag);
      set.add(field);
      continue;
    }
    switch (flag) {
      case '--quick':
        o.quick = true;
        break;
      case '--phase':
      case '--phases':
        o.phases = val().split(',');
        break;
      case '--profile':
        o.profile = val();
        break;
      case '--skip-baseline':
        o.skipBaseline = true;
        break;
      case '--write-latest':
        o.writeLatest = true;
        break;
      case '--no-write-latest':
        o.writeLatest = false;
        break;
      case '--list':
        o.list = true;
        break;
      case '--help':
      case '-h':
        process.stdout.write(helpText());
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${a} (see --help)`);
    }
  }
  if (o.quick) {
    // a smoke run: every phase and every code path, tiny sizes (CI runs this after the build).
    // An ingest window of 2 s: on a loaded machine a fresh API's 100-email requests can take
    // over a second, and a 1 s window then ends before any is answered (a failed phase).
    for (const [k, v] of Object.entries({ n: 1000, reps: 1, ingestSeconds: 2, mixedSeconds: 1 })) {
      if (!set.has(k)) o[k] = v;
    }
  }
  // the number options given on the command line (a phase with its own default size uses `n`
  // only when it was given)
  o.given = set;
  return o;
}

async function loadPhases() {
  const dir = join(BENCH, 'phases');
  const mods = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .sort()) {
    const m = await import(pathToFileURL(join(dir, f)).href);
    if (typeof m.run !== 'function' || !m.name) continue;
    mods.push(m);
  }
  return mods.sort((a, b) => (a.order ?? 1000) - (b.order ?? 1000));
}

function versions() {
  const require = createRequire(join(ROOT, 'package.json'));
  const v = {};
  for (const p of ['bullmq', 'ioredis', 'nodemailer', 'smtp-server', 'express', 'zod', 'autocannon']) {
    try {
      v[p] = require(`${p}/package.json`).version;
    } catch {
      v[p] = 'unknown';
    }
  }
  return v;
}

function gitCommit() {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT })
      .toString()
      .trim();
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

/** Largest `cpu.other` anywhere in a phase's result. */
function maxOther(v) {
  if (!v || typeof v !== 'object') return 0;
  let m = typeof v.other === 'number' && 'machine' in v ? v.other : 0;
  for (const x of Object.values(v)) m = Math.max(m, maxOther(x));
  return m;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const phases = await loadPhases();
  if (opts.list) {
    for (const p of phases) process.stdout.write(`${p.name.padEnd(12)} ${p.title ?? ''}\n`);
    return 0;
  }
  const selected = opts.phases ? phases.filter((p) => opts.phases.includes(p.name)) : phases;
  if (opts.phases) {
    const unknown = opts.phases.filter((n) => !phases.some((p) => p.name === n));
    if (unknown.length)
      throw new Error(
        `unknown phase(s): ${unknown.join(', ')}; known: ${phases.map((p) => p.name).join(', ')}`,
      );
  }
  if (!petrelBuilt()) {
    // a clean clone: build once (the bench measures the built apps, apps/*/dist)
    process.stdout.write('bench: Petrel is not built yet; running `npm run build`\n');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (!petrelBuilt()) throw new Error('`npm run build` did not produce apps/api/dist and apps/worker/dist');
  }

  installExitHandlers();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
  const runName = `${stamp}${opts.quick ? '-quick' : ''}`;
  const outDir = join(BENCH, 'results', runName);
  mkdirSync(join(outDir, 'logs'), { recursive: true });
  setLogDir(join(outDir, 'logs'));

  const t0 = now();
  const elapsed = () => `${((now() - t0) / 1000).toFixed(1).padStart(6)}s`;
  const progress = (msg) => process.stdout.write(`[${elapsed()}] ${msg}\n`);

  progress(
    `petrel bench${opts.quick ? ' (quick)' : ''}: phases ${selected.map((p) => p.name).join(', ')}; logs in ${outDir}`,
  );
  let background = await backgroundLoad(opts.quick ? 300 : 2000);
  const quietUntil = Date.now() + opts.waitQuiet * 1000;
  while (background > 10 && Date.now() < quietUntil) {
    progress(`the machine is ${background}% busy with other work; waiting for it to go quiet (--wait-quiet)`);
    background = await backgroundLoad(5000);
  }
  if (background > 10) {
    progress(
      `WARNING: the machine is already ${background}% busy before the bench starts; figures will be low and noisy`,
    );
  }
  const redis = await startRedis();
  const sink = await startSink();
  const machine = {
    ...machineInfo(),
    redis: redis.version,
    redis_aof: redis.aof ? 'everysec' : 'off',
    packages: versions(),
    commit: gitCommit(),
    date: new Date().toISOString(),
    quick: opts.quick,
    background_cpu_pct_before_run: background,
  };
  progress(machineLine(machine));

  // The bench sends from bench.example, a domain no team verified: the API alone would refuse it.
  const petrelEnv = { ENFORCE_VERIFIED_DOMAINS: 'false' };
  const ctx = { opts, redis, sink, results: {}, outDir, progress, phase: undefined, petrelEnv };
  const json = {};
  const rows = [];
  let failures = 0;
  try {
    for (const [i, p] of selected.entries()) {
      ctx.phase = p.name;
      progress(`[${i + 1}/${selected.length}] ${p.name}: ${p.title ?? ''}`);
      const started = now();
      let result;
      try {
        result = await p.run(ctx);
      } catch (err) {
        failures++;
        result = { error: String(err?.message ?? err) };
        progress(`  FAILED: ${String(err?.stack ?? err)}`);
        // children of the failed phase must not leak into the next one
        for (const c of liveChildren()) if (c.pid !== redis.pid && c.pid !== sink.pid) await c.kill();
      }
      ctx.results[p.name] = result;
      json[p.name] = result.error || !p.toJson ? result : p.toJson(result);
      if (!result.error && p.rows) rows.push(...p.rows(result));
      else if (result.error)
        rows.push({
          phase: p.name,
          metric: 'error',
          petrel: result.error.split('\n')[0].slice(0, 120),
          baseline: '',
          ratio: null,
        });
      progress(`  ${p.name} done in ${((now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    await sink.stop().catch(() => undefined);
    await redis.stop().catch(() => undefined);
  }
  json.machine = machine;

  const contaminated = Object.entries(ctx.results)
    .map(([name, r]) => [name, maxOther(r)])
    .filter(([, o]) => o > 25);
  const warn = contaminated.length
    ? `\n**Other load on the machine** (CPU of processes the bench did not start, max over the phase's windows, % of one core): ` +
      `${contaminated.map(([n, o]) => `${n} ${o}`).join(', ')}. These phases' absolute figures are low; per-email CPU and ratios hold better.\n`
    : '';
  const md =
    `# Petrel bench${opts.quick ? ' (quick)' : ''} — ${machine.date}\n\n` +
    `${machineLine(machine)}. Commit ${machine.commit}. Other load before the run: ${machine.background_cpu_pct_before_run}% of the machine.\n\n` +
    markdownTable(rows) +
    warn +
    `\n${CPU_LEGEND}\n`;
  process.stdout.write(`\n${md}\n`);

  const resultsDir = join(BENCH, 'results');
  writeFileSync(join(resultsDir, `${runName}.json`), JSON.stringify(json, null, 2) + '\n');
  writeFileSync(join(outDir, 'table.md'), md);
  const full = !opts.quick && !opts.phases && failures === 0;
  if (opts.writeLatest ?? full) {
    writeFileSync(join(resultsDir, 'latest.json'), JSON.stringify(json, null, 2) + '\n');
    writeFileSync(join(resultsDir, 'latest.md'), md);
    progress(`wrote bench/results/latest.json and latest.md`);
  }
  progress(`wrote bench/results/${runName}.json (${((now() - t0) / 1000).toFixed(0)} s in all)`);
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);

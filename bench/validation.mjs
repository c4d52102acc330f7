// Micro-benchmark of send-request validation: `validateBatch` on 100-email batches, the work the
// ingest path does for every POST /emails/batch before anything touches Redis.
//
//   npx tsc -b packages/core                        # the bench imports the built @petrel/core
//   node bench/validation.mjs                       # the current validator
//   node bench/validation.mjs --against <git-rev>   # and the validator of another revision, side by side
//   node bench/validation.mjs --seconds 2 --reps 9  # per measurement (default 1 s), repetitions (default 5)
//   node bench/validation.mjs --case rich           # only the cases whose name contains this
//
// `--against` transpiles `packages/core/src/validation/*.ts` of that revision into
// bench/results/.validation-<rev>/ (git-ignored) and runs it against the same built contracts.
// Both sides alternate, `--reps` times each, and the best run of each is reported: on a shared
// machine the fastest run is the one least disturbed by other load.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { validateBatch } from '@petrel/core';
import { batch } from './lib/payload.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    against: { type: 'string' },
    seconds: { type: 'string', default: '1' },
    reps: { type: 'string', default: '5' },
    case: { type: 'string', default: '' },
  },
});
const seconds = Number(args.seconds);

/** What the ingest phase sends: `to` as an array, a display-name `from`, html and text. */
const ingest = batch(0, 100, 'small');
/** Every header-bound field in use: string and array lists, display names, headers, tags. */
const rich = ingest.map((e, i) => ({
  ...e,
  to: i % 2 === 0 ? e.to[0] : [e.to[0], `"Doe, Jane ${i}" <jane${i}@rcpt.example>`],
  cc: [`Ops <ops${i}@rcpt.example>`],
  reply_to: 'support@bench.example',
  headers: { 'X-Entity-Ref-ID': `ref-${i}`, 'List-Unsubscribe': `<https://bench.example/u/${i}>` },
  tags: [
    { name: 'category', value: 'order_confirmation' },
    { name: 'order', value: String(100_000 + i) },
  ],
}));
const CASES = { 'ingest batch': ingest, 'rich batch': rich };

/** The validator of `rev`, transpiled from its TypeScript sources. */
async function validatorAt(rev) {
  const dir = join(root, 'bench', 'results', `.validation-${rev.replace(/[^\w.-]/g, '_')}`);
  mkdirSync(dir, { recursive: true });
  const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8' });
  const files = git('ls-tree', '--name-only', `${rev}:packages/core/src/validation`)
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const f of files) {
    const source = git('show', `${rev}:packages/core/src/validation/${f}`);
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
    });
    writeFileSync(join(dir, f.replace(/\.ts$/, '.js')), outputText);
  }
  return (await import(pathToFileURL(join(dir, 'index.js')).href)).validateBatch;
}

function measure(validate, body) {
  const now = new Date();
  const run = () => {
    const { accepted } = validate(body, { mode: 'strict', now });
    if (accepted.length !== body.length) throw new Error('the bench batch must be valid');
  };
  for (let i = 0; i < 2_000; i++) run();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    for (let i = 0; i < 50; i++) run();
    n += 50;
  }
  const ms = performance.now() - t0;
  return { opsPerSec: (n / ms) * 1000, usPerBatch: (ms / n) * 1000 };
}

const sides = [['current', validateBatch]];
if (args.against) sides.push([args.against, await validatorAt(args.against)]);

const rows = [];
for (const [name, body] of Object.entries(CASES)) {
  if (!name.includes(args.case)) continue;
  const best = new Map();
  for (let rep = 0; rep < Number(args.reps); rep++) {
    for (const [side, validate] of sides) {
      const r = measure(validate, body);
      if (!best.has(side) || r.usPerBatch < best.get(side).usPerBatch) best.set(side, r);
    }
  }
  for (const [side, r] of best) rows.push({ name, side, ...r });
  if (args.against) {
    const ratio = best.get('current').usPerBatch / best.get(args.against).usPerBatch;
    rows.push({ name, side: `current / ${args.against}`, ratio });
  }
}

console.log(
  `node ${process.version}, best of ${args.reps} × ${seconds} s per measurement, 100 emails per batch\n`,
);
console.log('| case | validator | ops/s | µs per batch |');
console.log('|---|---|---:|---:|');
for (const r of rows) {
  if (r.ratio !== undefined) console.log(`| ${r.name} | ${r.side} | | ${r.ratio.toFixed(2)}× |`);
  else console.log(`| ${r.name} | ${r.side} | ${Math.round(r.opsPerSec)} | ${r.usPerBatch.toFixed(1)} |`);
}

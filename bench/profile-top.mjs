#!/usr/bin/env node
// Summarises V8 .cpuprofile files (from `npm run bench -- --profile worker`): the top functions
// by self time, and self time per package (node_modules/<pkg>, packages/<name>, node internals).
//   node bench/profile-top.mjs <file-or-dir>... [--top 30] [--callers <function name>]...
// --callers prints, for a function, the call stacks (5 frames up) its self time comes from.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
let top = 30;
let depth = 5;
const callersOf = [];
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--top') top = Number(args[++i]);
  else if (args[i] === '--callers') callersOf.push(args[++i]);
  else if (args[i] === '--depth') depth = Number(args[++i]);
  else files.push(args[i]);
}
const expand = (p) =>
  statSync(p).isDirectory()
    ? readdirSync(p)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(p, f))
    : [p];
const paths = files.flatMap(expand);
if (paths.length === 0) {
  process.stderr.write('usage: node bench/profile-top.mjs <file.cpuprofile|dir>... [--top 30]\n');
  process.exit(2);
}

function bucketOf(url) {
  if (!url) return '(vm / native)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const m = url.match(/\/(packages|apps)\/([^/]+)\//);
  if (m) return `${m[1]}/${m[2]}`;
  return url.replace(/^file:\/\//, '');
}

const byFn = new Map();
const byOwner = new Map();
const stacks = new Map(callersOf.map((n) => [n, new Map()]));
const byPkg = new Map();
let total = 0;
for (const path of paths) {
  const prof = JSON.parse(readFileSync(path, 'utf8'));
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  for (const n of prof.nodes) for (const c of n.children ?? []) nodes.get(c).parent = n.id;
  const dts = prof.timeDeltas;
  const self = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = dts[i] ?? 0;
    self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
  }
  for (const [id, us] of self) {
    const n = nodes.get(id);
    const cf = n.callFrame;
    total += us;
    const name = cf.functionName || '(anonymous)';
    const where = cf.url
      ? `${cf.url.replace(/^.*\/(node_modules|packages|apps)\//, '$1/')}:${cf.lineNumber + 1}`
      : '';
    const key = `${name} ${where}`.trim();
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    if (stacks.has(name)) {
      const chain = [];
      for (let p = n.parent; p !== undefined && chain.length < depth; p = nodes.get(p)?.parent) {
        const f = nodes.get(p)?.callFrame;
        if (!f) break;
        chain.push(
          `${f.functionName || '(anon)'}@${(f.url || '').replace(/^.*\/(node_modules|packages|apps)\//, '').replace(/^node:internal\//, '')}:${f.lineNumber + 1}`,
        );
      }
      const m = stacks.get(name);
      const k = chain.join(' < ');
      m.set(k, (m.get(k) ?? 0) + us);
    }
    // owner: the nearest frame (leaf upwards) that belongs to a package, so that native and
    // node-internal time (socket writes, streams, buffers) is charged to the code that caused it
    let owner = ['(idle)', '(program)', '(garbage collector)'].includes(name) ? name : undefined;
    for (let p = id; owner === undefined && p !== undefined; p = nodes.get(p)?.parent) {
      const u = nodes.get(p)?.callFrame.url;
      if (u && !u.startsWith('node:')) owner = bucketOf(u);
    }
    owner ??= '(node internals, no package frame)';
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    const b = ['(idle)', '(program)', '(garbage collector)'].includes(name) ? name : bucketOf(cf.url);
    byPkg.set(b, (byPkg.get(b) ?? 0) + us);
  }
}

const pct = (us) => ((us / total) * 100).toFixed(1).padStart(5) + ' %';
const idle = byPkg.get('(idle)') ?? 0;
process.stdout.write(
  `${paths.length} profile(s), ${(total / 1e6).toFixed(1)} s sampled, ${pct(idle).trim()} idle\n\n`,
);
process.stdout.write('self time by package (share of all samples)\n');
for (const [k, v] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 25))
  process.stdout.write(`${pct(v)}  ${k}\n`);
process.stdout.write('\nself time charged to the nearest package frame (native and node: time included)\n');
for (const [k, v] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, 25))
  process.stdout.write(`${pct(v)}  ${k}\n`);
process.stdout.write(`\ntop ${top} functions by self time\n`);
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top))
  process.stdout.write(`${pct(v)}  ${k}\n`);
for (const [name, m] of stacks) {
  process.stdout.write(`\ncallers of ${name}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 12))
    process.stdout.write(`${pct(v)}  ${k}\n`);
}

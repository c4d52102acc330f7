#!/usr/bin/env node
// The dependency graph, checked by a machine (STYLE.md habit 10):
//  1. "may import": each workspace package imports only the packages ARCHITECTURE.md allows;
//  2. no deep imports (`@petrel/x/...`): packages meet only through their entry;
//  3. no circular imports between the source files of any package or app.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const MAY_IMPORT = {
  contracts: [],
  config: [],
  core: ['contracts'],
  store: ['contracts', 'core'],
  queue: ['contracts', 'observability'],
  mailer: ['contracts', 'core'],
  observability: ['config'],
  testing: ['contracts'],
};
const PACKAGES = Object.keys(MAY_IMPORT);
const APPS = ['api', 'worker', 'scheduler', 'webhooks', 'smtp', 'petrel'];
// Apps import packages, never another app — except the all-in-one launcher, which composes them.
const APP_MAY_IMPORT_APPS = { petrel: ['api', 'worker', 'scheduler', 'webhooks', 'smtp'] };

const errors = [];
const files = (dir) =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory()
          ? files(p)
          : /\.ts$/.test(n) && !/\.(test|fixture)\.ts$/.test(n)
            ? [p]
            : [];
      })
    : [];
const IMPORT_RE =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const graph = new Map();
for (const [kind, names] of [
  ['packages', PACKAGES],
  ['apps', APPS],
]) {
  for (const name of names) {
    for (const file of files(join(root, kind, name, 'src'))) {
      const src = readFileSync(file, 'utf8');
      const edges = [];
      for (const m of src.matchAll(IMPORT_RE)) {
        const spec = m[1] ?? m[2];
        if (spec.startsWith('@petrel/')) {
          const [, target, ...rest] = spec.split('/');
          if (rest.length) errors.push(`${relative(root, file)}: deep import ${spec}`);
          const allowed =
            kind === 'packages'
              ? MAY_IMPORT[name]
              : [...PACKAGES.filter((p) => p !== 'testing'), ...(APP_MAY_IMPORT_APPS[name] ?? [])];
          if (target !== name && !allowed.includes(target)) {
            errors.push(`${relative(root, file)}: ${kind}/${name} may not import @petrel/${target}`);
          }
        } else if (spec.startsWith('.')) {
          edges.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        }
      }
      graph.set(file, edges);
    }
  }
}

// Cycle detection (iterative DFS with colours).
const colour = new Map();
for (const start of graph.keys()) {
  if (colour.get(start)) continue;
  const stack = [[start, 0]];
  const path = [start];
  colour.set(start, 1);
  while (stack.length) {
    const top = stack[stack.length - 1];
    const edges = graph.get(top[0]) ?? [];
    if (top[1] < edges.length) {
      const next = edges[top[1]++];
      const c = colour.get(next);
      if (c === 1) {
        const cycle = path
          .slice(path.indexOf(next))
          .concat(next)
          .map((f) => relative(root, f));
        errors.push(`circular import: ${cycle.join(' -> ')}`);
      } else if (!c && graph.has(next)) {
        colour.set(next, 1);
        stack.push([next, 0]);
        path.push(next);
      }
    } else {
      colour.set(top[0], 2);
      stack.pop();
      path.pop();
    }
  }
}

if (errors.length) {
  console.error(`import check failed:\n  ${errors.join('\n  ')}`);
  process.exit(1);
}
console.log(`import check: ${graph.size} files, no forbidden or circular imports`);

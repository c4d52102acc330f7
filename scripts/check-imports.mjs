#!/usr/bin/env node
// The dependency graph, checked by a machine, so a layering mistake fails CI instead of a review:
//  1. "may import": each workspace package imports only the packages listed in MAY_IMPORT (so
//     apps → runtime → store/queue/mailer → core → contracts), and an app imports packages
//     (never another app, except the all-in-one launcher);
//  2. the domain stays free of transports: packages/core and packages/contracts never import a
//     transport or runtime library (FORBIDDEN_LIBRARIES), not even its types or a subpath;
//  3. no deep imports (`@petrel/x/...`): packages meet only through their entry;
//  4. no circular imports between the source files of any package or app.
//  5. no circular imports between the top-level folders of packages/core (FOLDER_ACYCLIC): each
//     feature folder may import the kernel and features below it, never one that imports it back.
//
// Usage: node scripts/check-imports.mjs [rootDir]   (rootDir defaults to the repository root)
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAY_IMPORT = {
  contracts: [],
  config: [],
  core: ['contracts'],
  store: ['contracts', 'core'],
  queue: ['contracts', 'observability'],
  mailer: ['contracts', 'core'],
  observability: ['config'],
  testing: ['contracts', 'core'],
  // the composition root: builds the stores, queues and mailer parts every app asks it for
  runtime: ['contracts', 'config', 'core', 'store', 'queue', 'mailer', 'observability'],
};

/** Libraries the domain packages must not import: use-cases get ports, adapters live elsewhere. */
export const FORBIDDEN_LIBRARIES = [
  'express',
  'bullmq',
  'ioredis',
  'nodemailer',
  'pino',
  'prom-client',
  'smtp-server',
];
const DOMAIN_PACKAGES = ['core', 'contracts'];

/**
 * Packages whose top-level folders under src/ form no cycle, so each feature can be read, tested
 * and moved with only what it imports. Files at src/ itself (the barrel) are left to rule 4.
 */
export const FOLDER_ACYCLIC = ['core'];

// Apps import packages, never another app — except the all-in-one launcher, which composes them.
const APP_MAY_IMPORT_APPS = { petrel: ['api', 'worker', 'scheduler', 'smtp', 'webhooks'] };

const IMPORT_RE =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const subdirs = (dir) =>
  existsSync(dir) ? readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory()) : [];

const sourceFiles = (dir) =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((n) => {
        const p = join(dir, n);
        return statSync(p).isDirectory()
          ? sourceFiles(p)
          : /\.ts$/.test(n) && !/\.(test|fixture)\.ts$/.test(n)
            ? [p]
            : [];
      })
    : [];

/** True when `spec` names `lib` itself or one of its subpaths (`pino/file`, `bullmq/dist/...`). */
const namesLibrary = (spec, lib) => spec === lib || spec.startsWith(`${lib}/`);

/** Every rule violation under `root`, one readable line each (empty when the graph is clean). */
export function checkImports(root) {
  const errors = [];
  const apps = subdirs(join(root, 'apps'));
  const packages = subdirs(join(root, 'packages'));
  for (const p of packages) {
    if (!(p in MAY_IMPORT) && existsSync(join(root, 'packages', p, 'src'))) {
      errors.push(`packages/${p}: not in MAY_IMPORT (scripts/check-imports.mjs); add its allowed imports`);
    }
  }
  const graph = new Map();
  for (const [kind, names] of [
    ['packages', packages.filter((p) => p in MAY_IMPORT)],
    ['apps', apps],
  ]) {
    for (const name of names) {
      for (const file of sourceFiles(join(root, kind, name, 'src'))) {
        const where = relative(root, file);
        const src = readFileSync(file, 'utf8');
        const edges = [];
        for (const m of src.matchAll(IMPORT_RE)) {
          const spec = m[1] ?? m[2] ?? m[3];
          if (spec.startsWith('@petrel/')) {
            const [, target, ...rest] = spec.split('/');
            if (rest.length) errors.push(`${where}: deep import ${spec}`);
            const allowed =
              kind === 'packages'
                ? MAY_IMPORT[name]
                : [
                    ...Object.keys(MAY_IMPORT).filter((p) => p !== 'testing'),
                    ...(APP_MAY_IMPORT_APPS[name] ?? []),
                  ];
            if (target !== name && !allowed.includes(target)) {
              const what = apps.includes(target) ? 'an app' : 'not in its MAY_IMPORT list';
              errors.push(`${where}: ${kind}/${name} may not import @petrel/${target} (${what})`);
            }
          } else if (spec.startsWith('.')) {
            edges.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
          } else if (kind === 'packages' && DOMAIN_PACKAGES.includes(name)) {
            const lib = FORBIDDEN_LIBRARIES.find((l) => namesLibrary(spec, l));
            if (lib)
              errors.push(`${where}: packages/${name} may not import ${spec} (a transport: use a port)`);
          }
        }
        graph.set(file, edges);
      }
    }
  }
  errors.push(...findCycles(graph, root));
  for (const pkg of FOLDER_ACYCLIC) errors.push(...findFolderCycles(graph, root, pkg));
  return { errors, files: graph.size };
}

/** Circular imports in `graph` (file → imported files), by iterative DFS with colours. */
function findCycles(graph, root) {
  const errors = [];
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
  return errors;
}

/**
 * Cycles between the top-level folders of `packages/<pkg>/src`: the strongly connected components
 * (Tarjan) of the folder graph, each reported as one cycle with a file import for every step.
 */
function findFolderCycles(graph, root, pkg) {
  const src = join(root, 'packages', pkg, 'src');
  /** The top-level folder of a file under src/, or undefined for a file at src/ itself. */
  const folderOf = (file) => {
    const parts = relative(src, file).split(sep);
    return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
  };
  /** folder -> folder -> one `file -> file` import that makes the edge */
  const edges = new Map();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    for (const t of targets) {
      const to = folderOf(t);
      if (to === undefined || to === from || edges.get(from).has(to)) continue;
      edges.get(from).set(to, `${relative(src, file)} -> ${relative(src, t)}`);
    }
  }
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((component) => {
    // the shortest way back to the component's first folder (breadth first, inside the component)
    const members = new Set(component);
    const start = [...component].sort()[0];
    const previous = new Map([[start, null]]);
    const queue = [start];
    let last;
    while (queue.length && last === undefined) {
      const v = queue.shift();
      for (const w of edges.get(v)?.keys() ?? []) {
        if (!members.has(w)) continue;
        if (w === start) {
          last = v;
          break;
        }
        if (!previous.has(w)) {
          previous.set(w, v);
          queue.push(w);
        }
      }
    }
    const path = [start];
    for (let v = last; v !== start; v = previous.get(v)) path.splice(1, 0, v);
    path.push(start);
    const steps = path.slice(1).map((to, i) => edges.get(path[i]).get(to));
    const among = [...component].sort().join(', ');
    return `folder cycle in packages/${pkg}/src among ${among}: ${path.join(' -> ')} (${steps.join('; ')})`;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const { errors, files } = checkImports(root);
  if (errors.length) {
    console.error(`import check failed:\n  ${errors.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`import check: ${files} files, no forbidden or circular imports`);
}

/**
 * The facts the docs list, held to the code they describe, so neither can change alone. Each
 * side is read from its source: the code by importing its modules (or, where a fact is only in
 * the source's shape, by parsing it), the docs by parsing their tables and lists.
 *
 * - the acceptance stages, in order: docs/architecture.md's `a` → `b` → … line equals the
 *   stages array of core's `acceptStages`, every one of which `redisPreparer` switches on;
 * - the Lua scripts: docs/architecture.md's table of command files and script files equals the
 *   registry (the `lua/*.lua` files `SCRIPTS` of packages/store/src/scripts.ts loads, each typed
 *   in scripts.ts or a `*.scripts.ts` interface it extends);
 * - the metrics: docs/operations.md's table equals the metrics packages/observability defines
 *   (name, type, labels), and every `petrel_*` name in README.md and docs/ exists in the code;
 * - the configuration: README.md's table lists exactly the variables the apps parse, and names
 *   under "used by" only apps that parse them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '@petrel/core';
import { SCRIPTS } from '@petrel/store';
import { metrics, registry } from '@petrel/observability';
import { apiConfigShape } from '../apps/api/src/config.js';
import { workerConfigShape } from '../apps/worker/src/config.js';
import { schedulerConfigShape } from '../apps/scheduler/src/config.js';
import { webhooksConfigShape } from '../apps/webhooks/src/config.js';
import { smtpConfigShape } from '../apps/smtp/src/config.js';
import { petrelConfigShape } from '../apps/petrel/src/config.js';

const ROOT = resolve(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const ARCHITECTURE = read('docs/architecture.md');
const OPERATIONS = read('docs/operations.md');
const README = read('README.md');

/** The rows of the Markdown table whose header row is `header`, as trimmed cells. */
function tableRows(doc: string, header: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.trim() === header);
  expect(start, `a table headed ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The `code` spans of a piece of Markdown, in order. */
const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map(([, c]) => c!);

/** The source of `name`'s body (from its declaration to the next top-level closing brace). */
function functionSource(source: string, name: string): string {
  const start = source.indexOf(`function ${name}(`);
  expect(start, `function ${name}`).toBeGreaterThanOrEqual(0);
  return source.slice(start, source.indexOf('\n}\n', start));
}

describe('docs/architecture.md: the acceptance stages', () => {
  const stagesSource = read('packages/core/src/accept/stages/index.ts');
  const body = functionSource(stagesSource, 'acceptStages').replace(/\/\/.*$/gm, '');
  // each stage is its factory called with the ports: `checkTopic(ports.topics)`
  const stages = [...body.matchAll(/\b([a-z]\w*)\(ports\./g)].map(([, name]) => name!);

  it('the stages read from core are its exported stage factories', () => {
    expect(stages.length).toBeGreaterThan(3);
    for (const stage of stages) {
      expect(typeof (core as Record<string, unknown>)[stage], `${stage} exported by core`).toBe('function');
    }
  });

  it('every producer runs all of them: redisPreparer gives each optional stage its ports', () => {
    const preparer = functionSource(read('packages/store/src/acceptance-ports.ts'), 'redisPreparer');
    const optional = [...body.matchAll(/\.\.\.\(ports\.(\w+) \?/g)].map(([, port]) => port!);
    expect(optional.length).toBeGreaterThan(0);
    for (const port of optional)
      expect(preparer, `redisPreparer sets ${port}`).toMatch(new RegExp(`\\b${port}:`));
  });

  it('are listed in the order of acceptStages', () => {
    const lines = ARCHITECTURE.split('\n').filter((l) => /^\s*`\w+`( → `\w+`)+\s*$/.test(l));
    expect(lines, 'one `stage` → `stage` line in docs/architecture.md').toHaveLength(1);
    expect(codeSpans(lines[0]!)).toEqual(stages);
  });
});

describe('docs/architecture.md: the Lua scripts', () => {
  it('the table of command files and script files is the registry', () => {
    const STORE = 'packages/store/src';
    /** The `petrel…` members of the interface text `source` (an interface's methods and fields). */
    const commands = (source: string) =>
      [...source.matchAll(/^\s+(petrel\w+)[(:]/gm)].map(([, name]) => name!);
    const registrySource = read(`${STORE}/scripts.ts`);
    const own = registrySource.slice(registrySource.indexOf('export interface StoreCommands'));
    const code = new Map<string, string[]>([['scripts.ts', commands(own.slice(0, own.indexOf('\n}\n')))]]);
    for (const [, file] of registrySource.matchAll(
      /^import type \{ \w+StoreCommands \} from '\.\/([\w.-]+)\.js';$/gm,
    ))
      code.set(`${file}.ts`, commands(read(`${STORE}/${file}.ts`)));
    // every command file is in the registry's interface
    const files = readdirSync(join(ROOT, STORE)).filter((f) => f.endsWith('.scripts.ts'));
    expect(files.sort()).toEqual([...code.keys()].filter((f) => f !== 'scripts.ts').sort());

    // every script file is a typed command, and every command has its file
    const luaFiles = readdirSync(join(ROOT, STORE, 'lua')).filter((f) => f.endsWith('.lua'));
    const byCommand = new Map(luaFiles.map((f) => [f.replace(/-(\d+|n)\.lua$/, ''), f]));
    expect([...byCommand.keys()].sort()).toEqual([...code.values()].flat().sort());
    expect(Object.keys(SCRIPTS).sort()).toEqual([...byCommand.keys()].sort());
    for (const [name, script] of Object.entries(SCRIPTS))
      expect(byCommand.get(name), `${name}'s file names its key count`).toBe(
        `${name}-${script.numberOfKeys ?? 'n'}.lua`,
      );

    const docs = new Map(
      tableRows(
        ARCHITECTURE,
        '| commands (`packages/store/src/`) | Lua scripts (`packages/store/src/lua/`) |',
      ).map(([file, scripts]) => [codeSpans(file!)[0]!, codeSpans(scripts!)]),
    );
    const sorted = (m: Map<string, string[]>) =>
      Object.fromEntries([...m].map(([f, s]) => [f, [...s].sort()]).sort(([a], [b]) => (a! < b! ? -1 : 1)));
    expect(sorted(docs)).toEqual(
      sorted(new Map([...code].map(([file, names]) => [file, names.map((n) => byCommand.get(n)!)]))),
    );
  });
});

describe('docs/operations.md: the metrics', () => {
  async function codeMetrics(): Promise<Map<string, { type: string; labels: string[] }>> {
    for (const define of Object.values(metrics)) define();
    const out = new Map<string, { type: string; labels: string[] }>();
    for (const m of await registry.getMetricsAsJSON()) {
      const labels = (registry.getSingleMetric(m.name) as unknown as { labelNames?: string[] }).labelNames;
      out.set(m.name, { type: String(m.type), labels: [...(labels ?? [])].sort() });
    }
    return out;
  }

  it('the table lists every metric the code defines, with its type and labels', async () => {
    const code = await codeMetrics();
    expect(code.size).toBeGreaterThan(10);
    const docs = new Map(
      tableRows(OPERATIONS, '| metric | type | labels | written by | what |').map(([name, type, labels]) => [
        codeSpans(name!)[0]!,
        {
          type: type!,
          labels: labels!
            .split(',')
            .map((l) => l.trim())
            .filter(Boolean)
            .sort(),
        },
      ]),
    );
    expect(Object.fromEntries([...docs].sort())).toEqual(Object.fromEntries([...code].sort()));
  });

  it('every petrel_* name in README.md and docs/ exists in the code', async () => {
    const code = await codeMetrics();
    const histograms = [...code].filter(([, m]) => m.type === 'histogram').map(([name]) => name);
    const sources = ['apps', 'packages'].flatMap((dir) =>
      readdirSync(join(ROOT, dir)).map((name) => join(dir, name, 'src')),
    );
    const literals = new Set(
      sources.flatMap((dir) =>
        sourceFiles(join(ROOT, dir)).flatMap((f) =>
          [...readFileSync(f, 'utf8').matchAll(/['"`](petrel_[a-z0-9_]+)['"`]/g)].map(([, l]) => l!),
        ),
      ),
    );
    const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith('.md'),
    );
    const unknown: string[] = [];
    for (const doc of docs) {
      for (const [name] of read(doc).matchAll(/\bpetrel_[a-z0-9_]+/g)) {
        const series = histograms.find((h) => ['_bucket', '_sum', '_count'].some((s) => name === h + s));
        // a metric, a histogram's series, or another name the code uses (the dashboard's cookies)
        if (!code.has(name) && !series && !literals.has(name)) unknown.push(`${doc}: ${name}`);
      }
    }
    expect(unknown, 'petrel_* names the code does not define').toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (/\.test\.ts$/.test(name)) return [];
    if (name.endsWith('.ts') || name.endsWith('.tsx')) return [path];
    return name.includes('.') ? [] : sourceFiles(path);
  });
}

describe("README.md's configuration table", () => {
  const APP_SHAPES: Record<string, object> = {
    api: apiConfigShape,
    worker: workerConfigShape,
    scheduler: schedulerConfigShape,
    webhooks: webhooksConfigShape,
    smtp: smtpConfigShape,
  };
  const parsed = new Set(Object.keys(petrelConfigShape));
  const rows = tableRows(README, '| variable | default | used by | meaning |').map(
    ([variables, , usedBy]) => ({
      variables: codeSpans(variables!),
      usedBy: usedBy!
        .replace(/\([^)]*\)/g, '')
        .split(',')
        .map((u) => u.trim()),
    }),
  );

  it('lists exactly the variables the apps parse (the all-in-one parses every one)', () => {
    for (const shape of Object.values(APP_SHAPES)) {
      for (const variable of Object.keys(shape)) expect(parsed.has(variable), variable).toBe(true);
    }
    const listed = rows.flatMap((r) => r.variables);
    expect(
      listed.filter((v, i) => listed.indexOf(v) !== i),
      'listed twice',
    ).toEqual([]);
    expect([...parsed].filter((v) => !listed.includes(v)).sort(), 'parsed but not in README.md').toEqual([]);
    expect(listed.filter((v) => !parsed.has(v)).sort(), 'in README.md but parsed by no app').toEqual([]);
  });

  it('names under "used by" only apps that parse the variable', () => {
    const wrong: string[] = [];
    for (const { variables, usedBy } of rows) {
      // the all-in-one runs every process: naming it beside them says nothing more
      if (usedBy.includes('all-in-one') && usedBy.length > 1)
        wrong.push(`${variables}: all-in-one and others`);
      for (const user of usedBy) {
        const apps = user === 'all' ? Object.keys(APP_SHAPES) : user === 'all-in-one' ? [] : [user];
        if (user !== 'all-in-one' && !apps.every((a) => a in APP_SHAPES))
          wrong.push(`${variables}: ${user}?`);
        for (const app of apps.filter((a) => a in APP_SHAPES)) {
          for (const v of variables)
            if (!(v in APP_SHAPES[app]!)) wrong.push(`${v}: ${app} does not parse it`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

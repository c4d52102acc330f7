import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FORBIDDEN_LIBRARIES, checkImports } from './check-imports.mjs';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'check-imports.mjs');
const roots = [];

/** A throw-away repository tree: `files` maps a path (under the root) to its source. */
function tree(files) {
  const root = mkdtempSync(join(tmpdir(), 'check-imports-'));
  roots.push(root);
  for (const [path, src] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), src);
  }
  return root;
}

afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('check-imports', () => {
  it('passes a clean tree', () => {
    const root = tree({
      'packages/contracts/src/index.ts': "import { z } from 'zod';\nexport const s = z.string();\n",
      'packages/core/src/index.ts': "import type { S } from '@petrel/contracts';\nexport * from './a.js';\n",
      'packages/core/src/a.ts': 'export const a = 1;\n',
      'packages/store/src/index.ts': "import { Redis } from 'ioredis';\nimport { a } from '@petrel/core';\n",
      'apps/api/src/main.ts': "import express from 'express';\nimport { a } from '@petrel/core';\n",
    });
    expect(checkImports(root)).toEqual({ errors: [], files: 5 });
  });

  it.each(['core', 'contracts'])('refuses every transport library in packages/%s', (pkg) => {
    const forms = [
      (lib) => `import { x } from '${lib}';`,
      (lib) => `import type { X } from '${lib}';`,
      (lib) => `import '${lib}';`,
      (lib) => `export { x } from '${lib}/sub/path';`,
      (lib) => `const m = await import('${lib}');`,
      (lib) => `import {\n  type A,\n  b,\n} from '${lib}';`,
    ];
    const files = {};
    FORBIDDEN_LIBRARIES.forEach((lib, i) => {
      const form = forms[i % forms.length];
      files[`packages/${pkg}/src/f${i}.ts`] = `${form(lib)}\n`;
    });
    const { errors } = checkImports(tree(files));
    expect(errors).toHaveLength(FORBIDDEN_LIBRARIES.length);
    for (const lib of FORBIDDEN_LIBRARIES) {
      expect(errors.some((e) => e.includes(`packages/${pkg} may not import ${lib}`))).toBe(true);
    }
  });

  it.each([
    {
      rule: 'does not mistake a library with a similar name for a forbidden one',
      files: {
        'packages/core/src/a.ts': "import x from 'pino-pretty-like';\nimport y from 'expressive';\n",
      },
      errors: [],
    },
    {
      rule: 'refuses an app import from a package and from another app, but lets the launcher compose apps',
      files: {
        'packages/core/src/a.ts': "import { startApi } from '@petrel/api';\n",
        'apps/api/src/index.ts': 'export const startApi = 1;\n',
        'apps/worker/src/index.ts': "import { startApi } from '@petrel/api';\n",
        'apps/petrel/src/index.ts': "import { startApi } from '@petrel/api';\n",
      },
      errors: [
        'packages/core/src/a.ts: packages/core may not import @petrel/api (an app)',
        'apps/worker/src/index.ts: apps/worker may not import @petrel/api (an app)',
      ],
    },
    {
      rule: 'refuses a package outside its "may import" list, deep imports and cycles',
      files: {
        'packages/core/src/a.ts': "import { b } from './b.js';\nimport { q } from '@petrel/queue';\n",
        'packages/core/src/b.ts': "import { a } from './a.js';\n",
        'packages/store/src/index.ts': "import { k } from '@petrel/core/src/keys.js';\n",
      },
      errors: [
        'packages/core/src/a.ts: packages/core may not import @petrel/queue (not in its MAY_IMPORT list)',
        'packages/store/src/index.ts: deep import @petrel/core/src/keys.js',
        'circular import: packages/core/src/a.ts -> packages/core/src/b.ts -> packages/core/src/a.ts',
      ],
    },
    {
      rule: 'puts the runtime between the apps and the store: apps import it, packages below it do not',
      files: {
        'packages/runtime/src/index.ts':
          "import { Keys } from '@petrel/store';\nimport { SendQueues } from '@petrel/queue';\n",
        'packages/store/src/a.ts': "import { Runtime } from '@petrel/runtime';\n",
        'packages/runtime/src/b.ts': "import { startApi } from '@petrel/api';\n",
        'apps/api/src/main.ts': "import { runProcess } from '@petrel/runtime';\n",
      },
      errors: [
        'packages/runtime/src/b.ts: packages/runtime may not import @petrel/api (an app)',
        'packages/store/src/a.ts: packages/store may not import @petrel/runtime (not in its MAY_IMPORT list)',
      ],
    },
    {
      rule: 'refuses a cycle between the folders of packages/core even when no file imports itself back',
      files: {
        'packages/core/src/deliver/send.ts': "import { track } from '../tracking/track.js';\n",
        'packages/core/src/tracking/track.ts': "import { record } from '../emails/record.js';\n",
        'packages/core/src/emails/record.ts': "import { Ports } from '../deliver/ports.js';\n",
        'packages/core/src/deliver/ports.ts': 'export type Ports = {};\n',
      },
      errors: [
        'folder cycle in packages/core/src among deliver, emails, tracking: deliver -> tracking -> emails -> deliver ' +
          '(deliver/send.ts -> tracking/track.ts; tracking/track.ts -> emails/record.ts; emails/record.ts -> deliver/ports.ts)',
      ],
    },
    {
      rule: 'lets every core folder import the kernel and the features below it, and the barrel import them all',
      files: {
        'packages/core/src/index.ts':
          "export * from './kernel/index.js';\nexport * from './deliver/send.js';\n",
        'packages/core/src/kernel/index.ts': 'export const clock = 1;\n',
        'packages/core/src/emails/record.ts': "import { clock } from '../kernel/index.js';\n",
        'packages/core/src/deliver/send.ts':
          "import { clock } from '../kernel/index.js';\nimport { record } from '../emails/record.js';\n",
        'packages/store/src/a/x.ts': "import { y } from '../b/y.js';\n",
        'packages/store/src/b/y.ts': "import { x } from '../a/z.js';\n",
        'packages/store/src/a/z.ts': 'export const x = 1;\n',
      },
      errors: [],
    },
  ])('$rule', ({ files, errors }) => {
    expect(checkImports(tree(files)).errors).toEqual(errors);
  });

  it('skips test and fixture files', () => {
    const root = tree({
      'packages/core/src/a.test.ts': "import { Redis } from 'ioredis';\n",
      'packages/core/src/a.fixture.ts': "import { Redis } from 'ioredis';\n",
    });
    expect(checkImports(root)).toEqual({ errors: [], files: 0 });
  });

  it('runs on the directory given as its argument and exits 1 on a violation', () => {
    const bad = tree({ 'packages/contracts/src/a.ts': "import type { Job } from 'bullmq';\n" });
    const res = spawnSync(process.execPath, [SCRIPT, bad], { encoding: 'utf8' });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('packages/contracts/src/a.ts: packages/contracts may not import bullmq');
    const good = tree({ 'packages/contracts/src/a.ts': "import { z } from 'zod';\n" });
    expect(spawnSync(process.execPath, [SCRIPT, good], { encoding: 'utf8' }).status).toBe(0);
  });
});

import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Files at once in the first group of projects (unit, integration, e2e run side by side; vitest
 * wants one worker count per group): two, one per core of the CI machine.
 */
const GROUP0_WORKERS = 2;

/**
 * e2e files that run alone (see the `e2e-alone` project): each loads the machine on purpose or
 * bounds a recovery in time (memory-full: sends resume within 5 s; watchdog: 2 s worker locks).
 * Files whose assertions hold whatever the machine's speed run in the parallel `e2e` project
 * instead, e.g. rate-limits (its bounds are the GCRA's over a window read on Redis's clock) and
 * smtp-submission (every message answered 250 is delivered once; 451 while Redis is gone).
 */
const E2E_ALONE = [
  'test/e2e/broadcast-fanout.e2e.test.ts',
  'test/e2e/chaos.e2e.test.ts',
  'test/e2e/cluster-chaos.e2e.test.ts',
  'test/e2e/audience-cluster.e2e.test.ts',
  'test/e2e/cluster.e2e.test.ts',
  'test/e2e/contact-imports.e2e.test.ts',
  'test/e2e/watchdog.e2e.test.ts',
  'test/e2e/memory-full.e2e.test.ts',
  'test/e2e/infra.e2e.test.ts',
];

/** Tests import workspace packages from source, so `vitest` needs no build step. */
const alias = ['packages', 'apps'].flatMap((dir) =>
  readdirSync(`${root}${dir}`)
    .filter((name) => existsSync(`${root}${dir}/${name}/src/index.ts`))
    .map((name) => ({ find: `@petrel/${name}`, replacement: `${root}${dir}/${name}/src/index.ts` })),
);

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          // Unit files share their worker's modules instead of importing the workspace's sources
          // again for each file (https://vitest.dev/config/isolate): the 167 files took 63 s
          // instead of 182 s (import 55 s instead of 213 s summed) on a busy 2-core machine. So a
          // unit test leaves no global state behind it: it mocks no module (vi.mock) and restores
          // the timers and globals it changes.
          isolate: false,
          maxWorkers: GROUP0_WORKERS,
          include: ['{packages,apps}/*/src/**/*.test.ts', 'scripts/**/*.test.{ts,mjs}'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**', '**/dist/**'],
          // The property tests (fast-check) run a fixed number of generated cases: how long that
          // takes is the machine's speed, not a rule under test (5,000 header-injection cases took
          // 2.8 s of vitest's 5 s default on a loaded 2-core machine), so only a hang may time out.
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          maxWorkers: GROUP0_WORKERS,
          include: ['{packages,apps}/*/src/**/*.int.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The store's integration tests, the acceptance commit and the outbox relay again, against
        // a real Redis Cluster (packages/store/src/redis.fixture.ts).
        resolve: { alias },
        test: {
          name: 'integration-cluster',
          maxWorkers: GROUP0_WORKERS,
          include: [
            'packages/store/src/**/*.int.test.ts',
            'packages/runtime/src/**/*.int.test.ts',
            'apps/api/src/acceptance-ports.int.test.ts',
            'apps/scheduler/src/outbox-relay.int.test.ts',
          ],
          // starts its own cluster: the integration project already runs it once
          exclude: ['**/node_modules/**', '**/dist/**', 'packages/store/src/redis-cluster.int.test.ts'],
          provide: { redisCluster: true },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Whole-stack files that start their own stack and wait for events: two at a time, beside
        // the unit and integration projects (each stack has its own Redis prefix, ports and sink).
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...E2E_ALONE, '**/node_modules/**'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: GROUP0_WORKERS,
        },
      },
      {
        // Files that load the machine on purpose (kill -9, 100k-contact broadcasts, clusters,
        // several processes) or whose assertions are about recovery under load: one at a time,
        // after everything else has finished.
        resolve: { alias },
        test: {
          name: 'e2e-alone',
          include: E2E_ALONE,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The dashboard in a real browser (Debian's chromium driven by playwright-core) against
        // the whole stack: scripts/ensure-chromium.sh installs the browser.
        resolve: { alias },
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

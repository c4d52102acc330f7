import { readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

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
          include: ['{packages,apps}/*/src/**/*.test.ts', 'scripts/**/*.test.{ts,mjs}'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**', '**/dist/**'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
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
          include: [
            'packages/store/src/**/*.int.test.ts',
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
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
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
        },
      },
    ],
  },
});

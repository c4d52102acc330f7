import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import root from '../../vitest.config.js';

/**
 * The container image test on its own (`npm run test:image`): it builds the image, minutes of
 * work for both cores, so it stays out of the suite's projects and runs alone, after them.
 * Workspace packages resolve from source exactly as in the suite (the root config's aliases).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { alias: root.resolve?.alias ?? [] },
  test: {
    name: 'image',
    include: ['test/image/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    // the build: about 4 minutes on an idle 2-core machine, much longer on a loaded one
    hookTimeout: 30 * 60_000,
  },
});

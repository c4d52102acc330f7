/**
 * The dashboard's build: a static single-page app served by the API under /dashboard/.
 * The API serves it with a strict Content-Security-Policy (script-src 'self', style-src 'self'),
 * so the build must emit no inline script or style: one module script and one stylesheet,
 * both as files, and no modulepreload polyfill (Vite would inline it otherwise).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/dashboard/',
  // the shared contracts from source: the build needs no earlier build of the packages
  resolve: {
    alias: {
      '@petrel/contracts': fileURLToPath(new URL('../../packages/contracts/src/index.ts', import.meta.url)),
    },
  },
  // JSX through Vite's own transformer (no framework plugin), for Preact's automatic runtime.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    // no data: URIs: every asset is a file, so img-src/font-src 'self' covers them
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    sourcemap: false,
    rolldownOptions: {
      // The shared contracts (event type lists) are pure declarations: without this their zod
      // schemas (and zod) would be kept for their top-level calls.
      treeshake: {
        moduleSideEffects: (id: string) => !/packages[\\/]contracts[\\/]|node_modules[\\/]zod[\\/]/.test(id),
      },
    },
  },
});

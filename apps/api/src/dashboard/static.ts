/**
 * The built single-page app under /dashboard: its hashed assets with a year's cache (a new build
 * has new names), other files and every client route (`/dashboard/emails/…`) answered with
 * index.html, never cached, so a deployment is picked up at the next load.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type Response } from 'express';

const YEAR_S = 365 * 24 * 3600;

export function dashboardStatic(distDir: string | null): Router {
  const router = Router();
  const index = distDir ? join(distDir, 'index.html') : null;
  if (distDir && index && existsSync(index)) {
    router.use(
      '/dashboard/assets',
      express.static(join(distDir, 'assets'), {
        index: false,
        setHeaders: (res) => res.setHeader('Cache-Control', `public, max-age=${YEAR_S}, immutable`),
      }),
    );
    // an asset of another build (or a made-up path): never index.html in a script's place
    router.use('/dashboard/assets', (_req, res) => {
      res.status(404).type('text/plain').send('Not found\n');
    });
    router.use(
      '/dashboard',
      express.static(distDir, {
        index: false,
        setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
      }),
    );
  }
  const sendIndex = (res: Response) => {
    res.setHeader('Cache-Control', 'no-cache');
    if (index && existsSync(index)) return res.sendFile(index);
    res
      .status(404)
      .type('text/plain')
      .send('The dashboard is not built: run `npm run build` (it builds apps/dashboard).\n');
  };
  router.get(['/dashboard', '/dashboard/*rest'], (_req, res) => sendIndex(res));
  return router;
}

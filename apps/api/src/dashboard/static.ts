/**
 * The built single-page app under /dashboard: its hashed assets with a year's cache (a new build
 * has new names), other files and every client route (`/dashboard/emails/…`) answered with
 * index.html, never cached, so a deployment is picked up at the next load. The app's icon is
 * also the site's `/favicon.ico`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type Response } from 'express';

const YEAR_S = 365 * 24 * 3600;
const DAY_S = 24 * 3600;

/** The icon the app's index.html links (`<link rel="icon">`), from the build's root. */
const DASHBOARD_ICON = 'favicon.svg';
/** Where a browser looks for a site's icon when a page names none (a JSON response, say). */
export const FAVICON_PATH = '/favicon.ico';

export function dashboardStatic(distDir: string | null): Router {
  const router = Router();
  const index = distDir ? join(distDir, 'index.html') : null;
  const icon = distDir ? join(distDir, DASHBOARD_ICON) : null;
  // The SVG under the name browsers ask for: an image's decoder follows an XML Content-Type as
  // given, whatever the name (WHATWG MIME Sniffing, "Sniffing in an image context"). Answered
  // here, before the API's authentication: no key or session is needed, and none is refused.
  router.get(FAVICON_PATH, (_req, res) => {
    if (!icon || !existsSync(icon)) return res.status(404).type('text/plain').send('Not found\n');
    res.setHeader('Cache-Control', `public, max-age=${DAY_S}`);
    res.type('image/svg+xml').sendFile(icon);
  });
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

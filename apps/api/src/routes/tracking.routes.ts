/**
 * The open and click tracking links of emails (core/tracking), served WITHOUT an API key: the
 * signed token in the path is the credential. Mounted with the unsubscribe links, before
 * authentication; their errors are the same short pages (a person sees them in a browser).
 *
 * - `GET /t/o/:token` — the open pixel: a 1×1 transparent GIF, never cached (each load of the
 *   message is an open), and `email.opened` recorded.
 * - `GET /t/c/:token` — a tracked link: `email.clicked` recorded with the visitor's IP address
 *   and User-Agent, then 302 to exactly the URL the link had.
 *
 * A tampered token is a 404 page and an expired one a 410 page: never a redirect, so these
 * routes cannot send anyone to a URL this service did not sign (no open redirect). A HEAD request
 * (link checkers, prefetchers) gets the same answer and records nothing: no body was fetched.
 */
import type { Request, RequestHandler } from 'express';
import { CLICK_PATH, OPEN_PATH, type EngagementTracker } from '@petrel/core';
import { pathParam, type RouteSpec } from './route-table.js';

/** The smallest transparent 1×1 GIF (GIF89a, one transparent palette entry): 43 bytes. */
const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** The visitor as the request shows them (behind a proxy, the app's `trust proxy` decides `ip`). */
const visit = (req: Request) => ({
  ipAddress: req.ip ?? req.socket.remoteAddress ?? '',
  userAgent: req.get('user-agent') ?? '',
});

export function trackingRoutes(tracker: EngagementTracker): RouteSpec[] {
  const open: RequestHandler = async (req, res) => {
    await tracker.open(pathParam(req, 'token'), req.method === 'GET');
    res.status(200).type('image/gif').setHeader('Cache-Control', 'no-store').send(TRANSPARENT_GIF);
  };

  const click: RequestHandler = async (req, res) => {
    const location = await tracker.click(pathParam(req, 'token'), visit(req), req.method === 'GET');
    // set as is: Express's res.redirect would re-encode it, and the target must be exactly the link's
    res.status(302).setHeader('Location', location).setHeader('Cache-Control', 'no-store');
    // A Referrer-Policy on a redirect becomes the policy of the followed request (Fetch standard,
    // HTTP-redirect fetch): without the API's `no-referrer` the target sees the referrer it would
    // see without the tracked link in between.
    res.removeHeader('Referrer-Policy');
    res.end();
  };

  return [
    { path: `${OPEN_PATH}/:token`, methods: { get: open } },
    { path: `${CLICK_PATH}/:token`, methods: { get: click } },
  ];
}

/**
 * The security headers of a JSON API, set first on every response of the API process — success,
 * 401, 404, 422, 429, 5xx alike — as the OWASP REST Security Cheat Sheet lists them ("Security
 * Headers"): a JSON body is never sniffed into HTML, framed, cached by a shared cache, or allowed
 * to load anything if a browser renders it. Routes whose responses a browser shows set their
 * own values over these: the dashboard's pages (its CSP, its caching), the unsubscribe pages
 * (a CSP allowing their form), the tracking pixel and redirect, the received-mail downloads.
 */
import type { NextFunction, Request, Response } from 'express';

const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) res.setHeader(name, value);
  next();
}

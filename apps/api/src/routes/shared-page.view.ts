/**
 * The view of a shared email's public links (email-share-links.routes.ts): the page, built
 * without scripts, the headers of everything served without an API key, and the policies
 * (Content Security Policy Level 3) of the page, its sandboxed frame and a sent attachment's
 * download.
 */
import type { Response } from 'express';
import { escapeHtml } from '@petrel/core';
import { createHash } from 'node:crypto';

/** What the shared page shows of an email. */
export interface SharedView {
  subject: string;
  from: string;
  to: string[];
  cc: string[];
  date: string;
  html: string | null;
  text: string | null;
}

const PAGE_STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f7;color:#111}' +
  'main{max-width:52rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.3rem;margin:0 0 1rem}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0 0 1rem}dt{color:#555}dd{margin:0}' +
  'iframe{width:100%;height:70vh;border:1px solid #ddd;background:#fff}pre{white-space:pre-wrap;background:#fff;border:1px solid #ddd;padding:1rem}' +
  'small{color:#555}';
/** The page allows its one style element by hash (CSP Level 3, "hash-source"): no inline script or style else. */
const PAGE_STYLE_HASH = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;
const PAGE_CSP =
  `default-src 'none'; style-src ${PAGE_STYLE_HASH}; frame-src 'self'; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/**
 * The frame's own policy: `sandbox` (no script, form, popup or same-origin access even when the
 * document is opened on its own), inline styles and embedded (data:) images and fonts only, and
 * framed by this origin's page only.
 */
const FRAME_CSP =
  "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-ancestors 'self'";
/** A download is never a document of this origin: sandboxed, loading nothing. */
const DOWNLOAD_CSP = "sandbox; default-src 'none'";

function publicHeaders(res: Response, csp: string): Response {
  return res
    .setHeader('Content-Security-Policy', csp)
    .setHeader('X-Content-Type-Options', 'nosniff')
    .setHeader('Cache-Control', 'private, no-store')
    .setHeader('Referrer-Policy', 'no-referrer')
    .setHeader('X-Robots-Tag', 'noindex, nofollow');
}

function sharedPage(view: SharedView, token: string, expiresAt: number): string {
  const row = (name: string, value: string) => (value ? `<dt>${name}</dt><dd>${escapeHtml(value)}</dd>` : '');
  const body =
    view.html !== null
      ? // relative to /shared/<token>: the frame's document is /shared/<token>/html
        `<iframe sandbox src="${escapeHtml(token)}/html" title="The email's html body (sandboxed)" referrerpolicy="no-referrer"></iframe>`
      : `<pre>${escapeHtml(view.text ?? '')}</pre>`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">` +
    `<title>${escapeHtml(view.subject || '(no subject)')}</title><style>${PAGE_STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(view.subject || '(no subject)')}</h1><dl>` +
    row('From', view.from) +
    row('To', view.to.join(', ')) +
    row('Cc', view.cc.join(', ')) +
    row('Date', view.date) +
    `</dl>${body}<p><small>This shared link expires at ${new Date(expiresAt * 1000).toISOString()}.</small></p>` +
    `</main></body></html>`
  );
}

/** GET /shared/:token: the page (its html body, if any, framed from `<token>/html`). */
export function sendSharedPage(res: Response, view: SharedView, token: string, expiresAt: number): void {
  publicHeaders(res, PAGE_CSP)
    .status(200)
    .type('html')
    .send(sharedPage(view, token, expiresAt));
}

/** GET /shared/:token/html: the email's html, the document of the page's sandboxed frame. */
export function sendSharedFrame(res: Response, html: string): void {
  publicHeaders(res, FRAME_CSP).status(200).type('html').send(html);
}

/** The headers of a sent attachment's download, before its type and disposition. */
export const downloadHeaders = (res: Response): Response => publicHeaders(res, DOWNLOAD_CSP).status(200);

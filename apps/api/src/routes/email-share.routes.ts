/**
 * A sent email's attachments and shared links (Resend's `emails.attachments.list/get` and
 * `emails.share`). Thin: the ids, tokens and expiry rules are core's (share/), the reads the
 * stores'.
 *
 * - `GET /emails/:emailId/attachments[/:id]` — the attachments of a sent email, each with a
 *   short-lived signed `download_url` (the received emails' download links, core's
 *   download-token.ts, marked as a sent email's), served without an API key by
 *   `GET /emails/downloads/:token`: always `Content-Disposition: attachment`, `nosniff` and a
 *   sandboxing CSP, as received attachments are.
 * - `POST /emails/:id/share` (`expires_in`) — a signed public URL, `GET /shared/:token`, that
 *   shows the email (a sent one, or a received one by its id) to whoever holds it. The page is
 *   built here without scripts; the email's html is never part of it but the document of a
 *   sandboxed frame (`GET /shared/:token/html`, sandboxed again by its own CSP), as the
 *   dashboard shows it: no script of the email runs, nothing it links loads (remote images
 *   included: viewing a shared email must not look like an open to its sender's tracking or a
 *   third party's), and the page cannot be framed elsewhere. Each view reads the email again, so
 *   the link dies with the email's record; a tampered or expired token is a 404 page.
 */
import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import { notFound } from '@petrel/contracts';
import {
  SENT_DOWNLOAD_PATH,
  SHARE_PATH,
  broadcastEmailContent,
  escapeHtml,
  findSentAttachment,
  inboundDownloadLinks,
  sentAttachments,
  shareExpiry,
  shareUrl,
  verifyDownloadToken,
  verifyShareToken,
  type BroadcastEmailReadPorts,
  type SentAttachment,
  type ShareClaims,
} from '@petrel/core';
import { attachmentType } from '@petrel/mailer';
import type { EmailsStore, InboundStore } from '@petrel/store';
import { createHash } from 'node:crypto';
import { UNPAGED_LIST_MAX, pageArray, parsePageQuery } from './pagination.js';
import { parseBody } from './parse-body.js';
import { disposition, safeType } from './receiving.routes.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface EmailShareDeps {
  emails: EmailsStore;
  inbound: InboundStore;
  /** What a broadcast's email is rendered from (it stores no body), as GET /emails/:id does. */
  broadcastEmails: BroadcastEmailReadPorts;
  /** The key of the signed links (tokens of each purpose differ). */
  secret: string;
  /** Public base URL the links point under (read per request). */
  publicUrl: () => string;
  now: () => number;
}

const shareSchema = z.strictObject({ expires_in: z.string().optional() });

/** An attachment as Resend's AttachmentData, without its link. */
function attachmentMeta(a: SentAttachment) {
  return {
    id: a.id,
    ...(a.filename !== undefined && { filename: a.filename }),
    size: a.size,
    // the type the message carried (given, else from the file name: the MIME builder's rule)
    content_type: attachmentType(a.content_type, a.filename),
    content_disposition: a.content_disposition,
    ...(a.content_id !== undefined && { content_id: a.content_id }),
  };
}

/** The attachment routes and POST /emails/:id/share (behind the API key, full access). */
export function emailShareRoutes(deps: EmailShareDeps): RouteSpec[] {
  const links = () =>
    inboundDownloadLinks({
      secret: deps.secret,
      publicUrl: deps.publicUrl(),
      now: deps.now,
      path: SENT_DOWNLOAD_PATH,
    });
  const team = (res: Response): string => res.locals.auth.teamId as string;

  async function attachmentsOf(teamId: string, emailId: string) {
    const found = await deps.emails.getForSend(teamId, emailId);
    if (!found) throw notFound('Email');
    return { id: found.record.id, attachments: found.attachments };
  }

  const downloadable = (teamId: string, emailId: string, a: SentAttachment) => ({
    ...attachmentMeta(a),
    ...links().url({ teamId, emailId, attachmentId: a.id, source: 'sent' }),
  });

  const listAttachments: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, UNPAGED_LIST_MAX);
    const email = await attachmentsOf(team(res), pathParam(req, 'emailId'));
    // in the message's order, as received emails' attachments are listed
    const { data, has_more } = pageArray(sentAttachments(email.id, email.attachments), page);
    res.json({ object: 'list', has_more, data: data.map((a) => downloadable(team(res), email.id, a)) });
  };

  const getAttachment: RequestHandler = async (req, res) => {
    const email = await attachmentsOf(team(res), pathParam(req, 'emailId'));
    const a = findSentAttachment(email.id, email.attachments, pathParam(req, 'id'));
    if (!a) throw notFound('Attachment');
    res.json({ object: 'attachment', ...downloadable(team(res), email.id, a) });
  };

  const share: RequestHandler = async (req, res) => {
    const body = parseBody(shareSchema, req.body);
    const teamId = team(res);
    const id = pathParam(req, 'id');
    // Resend shares sent and received emails alike by id
    const kind = (await deps.emails.get(teamId, id))
      ? 'sent'
      : (await deps.inbound.get(teamId, id))
        ? 'received'
        : null;
    if (kind === null) throw notFound('Email');
    const claims: ShareClaims = {
      teamId,
      emailId: id.toLowerCase(),
      kind,
      expiresAt: shareExpiry(body.expires_in, deps.now()),
    };
    res.json({ object: 'email', id: claims.emailId, url: shareUrl(deps.publicUrl(), claims, deps.secret) });
  };

  return [
    { path: '/emails/:emailId/attachments', methods: { get: listAttachments } },
    { path: '/emails/:emailId/attachments/:id', methods: { get: getAttachment } },
    { path: '/emails/:id/share', methods: { post: share } },
  ];
}

/** What the shared page shows of an email. */
interface SharedView {
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

/** The public links: shared pages and sent attachments' downloads (no API key: the token is the credential). */
export function emailShareLinkRoutes(deps: EmailShareDeps): RouteSpec[] {
  async function view(claims: ShareClaims): Promise<SharedView> {
    if (claims.kind === 'received') {
      const r = await deps.inbound.get(claims.teamId, claims.emailId);
      if (!r) throw notFound('Email');
      return {
        subject: r.subject,
        from: r.from,
        to: r.to,
        cc: r.cc,
        date: r.created_at,
        html: r.html,
        text: r.text,
      };
    }
    let record = await deps.emails.get(claims.teamId, claims.emailId);
    if (!record) throw notFound('Email');
    // a broadcast's email stores no body: rendered as its recipient got it (as GET /emails/:id)
    if (record.broadcastId !== null) {
      const personal = await broadcastEmailContent(
        { ...record, broadcastId: record.broadcastId },
        deps.broadcastEmails,
      );
      if (personal) record = { ...record, content: { ...record.content, ...personal } };
    }
    const c = record.content;
    return {
      subject: c.subject,
      from: c.from,
      to: c.to,
      cc: c.cc,
      date: record.createdAt,
      html: c.html ?? null,
      text: c.text ?? null,
    };
  }

  const claimsOf = (token: string): ShareClaims => {
    const claims = verifyShareToken(token, deps.secret, deps.now());
    // tampered and expired alike: the page does not say which
    if (!claims) throw notFound('Shared email');
    return claims;
  };

  const page: RequestHandler = async (req, res) => {
    const token = pathParam(req, 'token');
    const claims = claimsOf(token);
    const shown = await view(claims);
    publicHeaders(res, PAGE_CSP)
      .status(200)
      .type('html')
      .send(sharedPage(shown, token, claims.expiresAt));
  };

  const frame: RequestHandler = async (req, res) => {
    const shown = await view(claimsOf(pathParam(req, 'token')));
    if (shown.html === null) throw notFound('Email html');
    publicHeaders(res, FRAME_CSP).status(200).type('html').send(shown.html);
  };

  const download: RequestHandler = async (req, res) => {
    const claims = verifyDownloadToken(pathParam(req, 'token'), deps.secret, deps.now());
    if (!claims || claims.source !== 'sent' || claims.attachmentId === null) throw notFound('Download');
    const found = await deps.emails.getForSend(claims.teamId, claims.emailId);
    const a = found ? findSentAttachment(claims.emailId, found.attachments, claims.attachmentId) : null;
    if (!found || !a) throw notFound('Attachment');
    publicHeaders(res, "sandbox; default-src 'none'")
      .status(200)
      .setHeader('Content-Type', safeType(attachmentType(a.content_type, a.filename).split(';')[0]!.trim()))
      .setHeader('Content-Disposition', disposition(a.filename ?? `attachment-${a.index + 1}`))
      .send(Buffer.from(found.attachments[a.index]!.content, 'base64'));
  };

  return [
    { path: `${SHARE_PATH}/:token`, methods: { get: page } },
    { path: `${SHARE_PATH}/:token/html`, methods: { get: frame } },
    { path: `${SENT_DOWNLOAD_PATH}/:token`, methods: { get: download } },
  ];
}

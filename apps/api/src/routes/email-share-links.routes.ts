/**
 * The public links of email-share.routes.ts, served without an API key (the signed token is the
 * credential): a shared email's page and its html frame, and a sent attachment's download. Each
 * view reads the email again, so a link dies with the email's record; a tampered or expired
 * token is a 404 page that does not say which. The page and its headers are shared-page.view.ts.
 */
import type { RequestHandler } from 'express';
import { notFound } from '@petrel/contracts';
import {
  SENT_DOWNLOAD_PATH,
  SHARE_PATH,
  emailAsSent,
  findSentAttachment,
  verifyDownloadToken,
  verifyShareToken,
  type ShareClaims,
} from '@petrel/core';
import { attachmentType } from '@petrel/mailer';
import type { EmailShareDeps } from './email-share.routes.js';
import { disposition, safeType } from './receiving.routes.js';
import { pathParam, type RouteSpec } from './route-table.js';
import { downloadHeaders, sendSharedFrame, sendSharedPage, type SharedView } from './shared-page.view.js';

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
    const found = await deps.emails.get(claims.teamId, claims.emailId);
    if (!found) throw notFound('Email');
    // a broadcast's email is shown as its recipient got it (as GET /emails/:id)
    const record = await emailAsSent(found, deps.broadcastEmails);
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
    const claims = verifyShareToken(token, deps.secret, deps.clock.now());
    // tampered and expired alike: the page does not say which
    if (!claims) throw notFound('Shared email');
    return claims;
  };

  const page: RequestHandler = async (req, res) => {
    const token = pathParam(req, 'token');
    const claims = claimsOf(token);
    sendSharedPage(res, await view(claims), token, claims.expiresAt);
  };

  const frame: RequestHandler = async (req, res) => {
    const shown = await view(claimsOf(pathParam(req, 'token')));
    if (shown.html === null) throw notFound('Email html');
    sendSharedFrame(res, shown.html);
  };

  const download: RequestHandler = async (req, res) => {
    const claims = verifyDownloadToken(pathParam(req, 'token'), deps.secret, deps.clock.now());
    if (!claims || claims.source !== 'sent' || claims.attachmentId === null) throw notFound('Download');
    const found = await deps.emails.getForSend(claims.teamId, claims.emailId);
    const a = found ? findSentAttachment(claims.emailId, found.attachments, claims.attachmentId) : null;
    if (!found || !a) throw notFound('Attachment');
    downloadHeaders(res)
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

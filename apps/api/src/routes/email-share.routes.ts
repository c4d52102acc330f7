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
 *   built without scripts (shared-page.view.ts); the email's html is never part of it but the
 *   document of a sandboxed frame (`GET /shared/:token/html`, sandboxed again by its own CSP),
 *   as the dashboard shows it: no script of the email runs, nothing it links loads (remote
 *   images included: viewing a shared email must not look like an open to its sender's tracking
 *   or a third party's), and the page cannot be framed elsewhere.
 *
 * The routes served without a key, the page, its frame and the downloads, are
 * email-share-links.routes.ts.
 */
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { notFound } from '@petrel/contracts';
import {
  SENT_DOWNLOAD_PATH,
  findSentAttachment,
  inboundDownloadLinks,
  sentAttachments,
  shareExpiry,
  shareUrl,
  type BroadcastEmailReadPorts,
  type SentAttachment,
  type ShareClaims,
} from '@petrel/core';
import { attachmentType } from '@petrel/mailer';
import type { EmailsStore, InboundStore } from '@petrel/store';
import { UNPAGED_LIST_MAX, pageArray, parsePageQuery } from './pagination.js';
import { parseBody } from './parse-body.js';
import { pathParam, teamOf, type RouteSpec } from './route-table.js';

export interface EmailShareDeps {
  emails: EmailsStore;
  inbound: InboundStore;
  /** What a broadcast's email is rendered from (it stores no body), as GET /emails/:id does. */
  broadcastEmails: BroadcastEmailReadPorts;
  /** The key of the signed links (tokens of each purpose differ). */
  secret: string;
  /** Public base URL the links point under (read per request). */
  publicUrl: () => string;
  /** The links' and shares' expiry clock. */
  clock: { now(): number };
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
      clock: deps.clock,
      path: SENT_DOWNLOAD_PATH,
    });

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
    const email = await attachmentsOf(teamOf(res), pathParam(req, 'emailId'));
    // in the message's order, as received emails' attachments are listed
    const { data, has_more } = pageArray(sentAttachments(email.id, email.attachments), page);
    res.json({ object: 'list', has_more, data: data.map((a) => downloadable(teamOf(res), email.id, a)) });
  };

  const getAttachment: RequestHandler = async (req, res) => {
    const email = await attachmentsOf(teamOf(res), pathParam(req, 'emailId'));
    const a = findSentAttachment(email.id, email.attachments, pathParam(req, 'id'));
    if (!a) throw notFound('Attachment');
    res.json({ object: 'attachment', ...downloadable(teamOf(res), email.id, a) });
  };

  const share: RequestHandler = async (req, res) => {
    const body = parseBody(shareSchema, req.body);
    const teamId = teamOf(res);
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
      expiresAt: shareExpiry(body.expires_in, deps.clock.now()),
    };
    res.json({ object: 'email', id: claims.emailId, url: shareUrl(deps.publicUrl(), claims, deps.secret) });
  };

  return [
    { path: '/emails/:emailId/attachments', methods: { get: listAttachments } },
    { path: '/emails/:emailId/attachments/:id', methods: { get: getAttachment } },
    { path: '/emails/:id/share', methods: { post: share } },
  ];
}

/**
 * Received (inbound) emails, Resend's receiving API: GET /emails/receiving (paginated; every
 * email when `limit` is absent, as Resend's older lists, up to UNPAGED_LIST_MAX), GET
 * /emails/receiving/:id (parsed fields, headers, `raw` download link; `html_format=data_uri`,
 * the default, inlines `cid:` images, `cid` keeps the references), and its attachments (list,
 * get), each with a `download_url`.
 *
 * The download links are short-lived signed URLs (core's download-token.ts) served WITHOUT an
 * API key by GET /emails/receiving/downloads/:token, mounted with the other links before
 * authentication: the SDK's forward helper fetches `raw.download_url` with a plain fetch. A
 * download is always `Content-Disposition: attachment`, `nosniff` and sandboxed by CSP: the
 * bytes come from strangers and must never run as a page of this origin.
 *
 * The fixed path `/emails/receiving` is mounted before `/emails/:id` (route-table.ts).
 */
import type { Request, RequestHandler } from 'express';
import {
  notFound,
  validationError,
  type InboundAttachment,
  type InboundEmailRecord,
} from '@petrel/contracts';
import {
  INBOUND_DOWNLOAD_PATH,
  hasCidReferences,
  inboundAttachmentContent,
  inboundDownloadLinks,
  inlineCidImages,
  parseInboundMessage,
  verifyDownloadToken,
} from '@petrel/core';
import type { InboundStore } from '@petrel/store';
import { UNPAGED_LIST_MAX, pageArray, parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface ReceivingDeps {
  inbound: InboundStore;
  /** The key of the signed links (the unsubscribe links' key; tokens of each purpose differ). */
  secret: string;
  /** Public base URL the download links point under (read per request). */
  publicUrl: () => string;
  now: () => number;
}

/** Attachment metadata as the received email carries it. */
function attachmentMeta(a: InboundAttachment) {
  return {
    id: a.id,
    filename: a.filename,
    size: a.size,
    content_type: a.content_type,
    content_id: a.content_id,
    content_disposition: a.content_disposition,
  };
}

/** The fields of a received email every shape shares (list item, GET). */
function common(r: Omit<InboundEmailRecord, 'html' | 'text' | 'headers' | 'size'>) {
  return {
    id: r.id,
    to: r.to,
    from: r.from,
    created_at: r.created_at,
    subject: r.subject,
    bcc: r.bcc,
    cc: r.cc,
    reply_to: r.reply_to,
    received_for: r.received_for,
    message_id: r.message_id,
    attachments: r.attachments.map(attachmentMeta),
  };
}

/** `html_format`: data_uri (default) or cid; else 422. */
function htmlFormat(req: Request): 'data_uri' | 'cid' {
  const v = (req.query as Record<string, unknown>).html_format;
  if (v === undefined || v === 'data_uri') return 'data_uri';
  if (v === 'cid') return 'cid';
  throw validationError("html_format: must be one of 'data_uri', 'cid'");
}

export function receivingRoutes(deps: ReceivingDeps): RouteSpec[] {
  const links = () =>
    inboundDownloadLinks({ secret: deps.secret, publicUrl: deps.publicUrl(), now: deps.now });
  const team = (res: Parameters<RequestHandler>[1]): string => res.locals.auth.teamId as string;

  async function email(teamId: string, id: string): Promise<InboundEmailRecord> {
    const found = await deps.inbound.get(teamId, id);
    if (!found) throw notFound('Email');
    return found;
  }

  const downloadable = (teamId: string, emailId: string, a: InboundAttachment) => ({
    ...attachmentMeta(a),
    // the SDK types it 'inline' | 'attachment': a part without the header is an attachment
    content_disposition: a.content_disposition ?? 'attachment',
    ...links().url({ teamId, emailId, attachmentId: a.id }),
  });

  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, UNPAGED_LIST_MAX);
    const result = await deps.inbound.list(team(res), page);
    if (!result) throw validationError(`${page.after ? 'after' : 'before'}: no such email`);
    res.json({ object: 'list', has_more: result.hasMore, data: result.items.map(common) });
  };

  const get: RequestHandler = async (req, res) => {
    const format = htmlFormat(req);
    const r = await email(team(res), pathParam(req, 'id'));
    let html = r.html;
    if (format === 'data_uri' && html !== null && hasCidReferences(html)) {
      const raw = await deps.inbound.raw(team(res), r.id);
      if (raw) html = inlineCidImages(html, (await parseInboundMessage(raw)).attachments);
    }
    res.json({
      object: 'email',
      ...common(r),
      html,
      text: r.text,
      headers: r.headers,
      // Petrel extension: the inbound server's SPF, DKIM, DMARC, ARC and BIMI results (null: unchecked)
      authentication: r.authentication ?? null,
      raw: links().url({ teamId: team(res), emailId: r.id, attachmentId: null }),
    });
  };

  const listAttachments: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, UNPAGED_LIST_MAX);
    const r = await email(team(res), pathParam(req, 'emailId'));
    // newest-first ids are the listing order elsewhere; attachments keep the message's order
    const { data, has_more } = pageArray(r.attachments, page);
    res.json({ object: 'list', has_more, data: data.map((a) => downloadable(team(res), r.id, a)) });
  };

  const getAttachment: RequestHandler = async (req, res) => {
    const r = await email(team(res), pathParam(req, 'emailId'));
    const a = r.attachments.find((x) => x.id === pathParam(req, 'id').toLowerCase());
    if (!a) throw notFound('Attachment');
    res.json({ object: 'attachment', ...downloadable(team(res), r.id, a) });
  };

  return [
    { path: '/emails/receiving', methods: { get: list } },
    { path: '/emails/receiving/:id', methods: { get } },
    { path: '/emails/receiving/:emailId/attachments', methods: { get: listAttachments } },
    { path: '/emails/receiving/:emailId/attachments/:id', methods: { get: getAttachment } },
  ];
}

/** A MIME type safe to echo in Content-Type; anything else is served as octet-stream. */
export const safeType = (t: string): string =>
  /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(t) ? t : 'application/octet-stream';

/** RFC 6266 / RFC 8187: an ASCII fallback and the UTF-8 name. */
export function disposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** The signed download links (no API key: the token is the credential). */
export function receivingDownloadRoutes(deps: ReceivingDeps): RouteSpec[] {
  const download: RequestHandler = async (req, res) => {
    const claims = verifyDownloadToken(pathParam(req, 'token'), deps.secret, deps.now());
    // a sent email's attachment link is served at its own path (sent-attachments.routes.ts)
    if (!claims || claims.source === 'sent') throw notFound('Download');
    const raw = await deps.inbound.raw(claims.teamId, claims.emailId);
    if (!raw) throw notFound('Email');
    let body = raw;
    let type = 'message/rfc822';
    let name = `${claims.emailId}.eml`;
    if (claims.attachmentId !== null) {
      const r = await deps.inbound.get(claims.teamId, claims.emailId);
      const index = r?.attachments.findIndex((a) => a.id === claims.attachmentId) ?? -1;
      const part = index >= 0 ? await inboundAttachmentContent(raw, index) : null;
      if (!r || !part) throw notFound('Attachment');
      body = Buffer.from(part.content);
      type = safeType(r.attachments[index]!.content_type);
      name = r.attachments[index]!.filename ?? `attachment-${index + 1}`;
    }
    res
      .status(200)
      .setHeader('Content-Type', type)
      .setHeader('Content-Disposition', disposition(name))
      .setHeader('X-Content-Type-Options', 'nosniff')
      .setHeader('Content-Security-Policy', "sandbox; default-src 'none'")
      .setHeader('Cache-Control', 'private, no-store')
      .send(body);
  };
  return [{ path: `${INBOUND_DOWNLOAD_PATH}/:token`, methods: { get: download } }];
}

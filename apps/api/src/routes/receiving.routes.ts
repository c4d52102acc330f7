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
import { notFound, validationError } from '@petrel/contracts';
import {
  INBOUND_DOWNLOAD_PATH,
  findReceivedEmail,
  idKey,
  inboundDownloadLinks,
  openReceivedDownload,
  receivedEmailHtml,
  type ReceivedHtmlFormat,
} from '@petrel/core';
import type { InboundStore } from '@petrel/store';
import { UNPAGED_LIST_MAX, listBody, pageArray, parsePageQuery } from './pagination.js';
import { downloadableAttachment, receivedEmailWire, receivedListItem } from './receiving-wire.js';
import { pathParam, teamOf, type RouteSpec } from './route-table.js';

export interface ReceivingDeps {
  inbound: Pick<InboundStore, 'get' | 'raw' | 'list'>;
  /** The key of the signed links (the unsubscribe links' key; tokens of each purpose differ). */
  secret: string;
  /** Public base URL the download links point under (read per request). */
  publicUrl: () => string;
  /** The download links' expiry clock. */
  clock: { now(): number };
}

/** `html_format`: data_uri (default) or cid; else 422. */
function htmlFormat(req: Request): ReceivedHtmlFormat {
  const v = (req.query as Record<string, unknown>).html_format;
  if (v === undefined || v === 'data_uri') return 'data_uri';
  if (v === 'cid') return 'cid';
  throw validationError("html_format: must be one of 'data_uri', 'cid'");
}

export function receivingRoutes(deps: ReceivingDeps): RouteSpec[] {
  const links = () =>
    inboundDownloadLinks({ secret: deps.secret, publicUrl: deps.publicUrl(), clock: deps.clock });
  const link = (teamId: string, emailId: string, attachmentId: string | null) =>
    links().url({ teamId, emailId, attachmentId });

  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, UNPAGED_LIST_MAX);
    res.json(listBody(await deps.inbound.list(teamOf(res), page), page, 'email', receivedListItem));
  };

  const get: RequestHandler = async (req, res) => {
    const format = htmlFormat(req);
    const r = await findReceivedEmail(deps.inbound, teamOf(res), pathParam(req, 'id'));
    const html = await receivedEmailHtml(deps.inbound, teamOf(res), r, format);
    res.json(receivedEmailWire(r, html, link(teamOf(res), r.id, null)));
  };

  const listAttachments: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, UNPAGED_LIST_MAX);
    const r = await findReceivedEmail(deps.inbound, teamOf(res), pathParam(req, 'emailId'));
    // newest-first ids are the listing order elsewhere; attachments keep the message's order
    const { data, has_more } = pageArray(r.attachments, page);
    const item = (a: (typeof data)[number]) => downloadableAttachment(a, link(teamOf(res), r.id, a.id));
    res.json({ object: 'list', has_more, data: data.map(item) });
  };

  const getAttachment: RequestHandler = async (req, res) => {
    const r = await findReceivedEmail(deps.inbound, teamOf(res), pathParam(req, 'emailId'));
    const a = r.attachments.find((x) => x.id === idKey(pathParam(req, 'id')));
    if (!a) throw notFound('Attachment');
    res.json({ object: 'attachment', ...downloadableAttachment(a, link(teamOf(res), r.id, a.id)) });
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
    const token = pathParam(req, 'token');
    const d = await openReceivedDownload(token, {
      inbound: deps.inbound,
      secret: deps.secret,
      clock: deps.clock,
    });
    res
      .status(200)
      .setHeader('Content-Type', safeType(d.contentType))
      .setHeader('Content-Disposition', disposition(d.filename))
      .setHeader('X-Content-Type-Options', 'nosniff')
      .setHeader('Content-Security-Policy', "sandbox; default-src 'none'")
      .setHeader('Cache-Control', 'private, no-store')
      .send(d.body);
  };
  return [{ path: `${INBOUND_DOWNLOAD_PATH}/:token`, methods: { get: download } }];
}

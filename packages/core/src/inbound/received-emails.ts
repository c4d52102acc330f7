/**
 * Reads of received emails for Resend's receiving API: one email of the team (404 otherwise),
 * its html with `cid:` images inlined on demand, and what a signed download link opens (the raw
 * message or one attachment). The records and raw copies are the inbound store's.
 */
import { notFound, type InboundEmailRecord } from '@petrel/contracts';
import { verifyDownloadToken } from './download-token.js';
import {
  hasCidReferences,
  inboundAttachmentContent,
  inlineCidImages,
  parseInboundMessage,
} from './inbound-message.js';
import { found } from '../kernel/found.js';
import type { Clock } from '../kernel/clock.js';

/** The received emails and their raw copies (the inbound store). */
export interface ReceivedEmailsReader {
  get(teamId: string, id: string): Promise<InboundEmailRecord | null>;
  raw(teamId: string, id: string): Promise<Buffer | null>;
}

/** `html_format` of GET /emails/receiving/:id: `data_uri` inlines `cid:` images, `cid` keeps them. */
export type ReceivedHtmlFormat = 'data_uri' | 'cid';

/** The team's received email `id`, or 404. */
export async function findReceivedEmail(
  inbound: Pick<ReceivedEmailsReader, 'get'>,
  teamId: string,
  id: string,
): Promise<InboundEmailRecord> {
  return found(inbound.get(teamId, id), 'Email');
}

/**
 * The email's html in `format`: with `data_uri`, each `cid:` reference (RFC 2392) to one of its
 * parts becomes a `data:` URI (RFC 2397), read from the raw message — parsed again only when
 * the html has such a reference.
 */
export async function receivedEmailHtml(
  inbound: Pick<ReceivedEmailsReader, 'raw'>,
  teamId: string,
  email: InboundEmailRecord,
  format: ReceivedHtmlFormat,
): Promise<string | null> {
  const html = email.html;
  if (format !== 'data_uri' || html === null || !hasCidReferences(html)) return html;
  const raw = await inbound.raw(teamId, email.id);
  return raw ? inlineCidImages(html, (await parseInboundMessage(raw)).attachments) : html;
}

/** What a download link serves: the bytes, their declared MIME type and a file name. */
export interface ReceivedDownload {
  body: Buffer;
  contentType: string;
  filename: string;
}

/**
 * The raw message (`<id>.eml`) or the attachment a valid, unexpired token names; 404 for
 * anything else. A sent email's attachment link is served at its own path
 * (SENT_DOWNLOAD_PATH), so its token opens nothing here.
 */
export async function openReceivedDownload(
  token: string,
  ports: { inbound: ReceivedEmailsReader; secret: string; clock: Pick<Clock, 'now'> },
): Promise<ReceivedDownload> {
  const claims = verifyDownloadToken(token, ports.secret, ports.clock.now());
  if (!claims || claims.source === 'sent') throw notFound('Download');
  const raw = await ports.inbound.raw(claims.teamId, claims.emailId);
  if (!raw) throw notFound('Email');
  if (claims.attachmentId === null)
    return { body: raw, contentType: 'message/rfc822', filename: `${claims.emailId}.eml` };
  const r = await ports.inbound.get(claims.teamId, claims.emailId);
  const index = r?.attachments.findIndex((a) => a.id === claims.attachmentId) ?? -1;
  const part = index >= 0 ? await inboundAttachmentContent(raw, index) : null;
  if (!r || !part) throw notFound('Attachment');
  const a = r.attachments[index]!;
  return {
    body: Buffer.from(part.content),
    contentType: a.content_type,
    filename: a.filename ?? `attachment-${index + 1}`,
  };
}

/**
 * Received emails in Resend's wire shapes: the list item, the email object of GET
 * /emails/receiving/:id and an attachment with its download link.
 */
import type { InboundAttachment, InboundEmailRecord } from '@petrel/contracts';

/** A signed download link (core's inboundDownloadLinks). */
export interface DownloadLink {
  download_url: string;
  expires_at: string;
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
export function receivedListItem(r: Omit<InboundEmailRecord, 'html' | 'text' | 'headers' | 'size'>) {
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

/** GET /emails/receiving/:id: `html` as asked for (`html_format`), `raw` the message's link. */
export function receivedEmailWire(r: InboundEmailRecord, html: string | null, raw: DownloadLink) {
  return {
    object: 'email',
    ...receivedListItem(r),
    html,
    text: r.text,
    headers: r.headers,
    // Petrel extension: the inbound server's SPF, DKIM, DMARC, ARC and BIMI results (null: unchecked)
    authentication: r.authentication ?? null,
    raw,
  };
}

/** An attachment with its download link (attachments list and get). */
export function downloadableAttachment(a: InboundAttachment, link: DownloadLink) {
  return {
    ...attachmentMeta(a),
    // the SDK types it 'inline' | 'attachment': a part without the header is an attachment
    content_disposition: a.content_disposition ?? 'attachment',
    ...link,
  };
}

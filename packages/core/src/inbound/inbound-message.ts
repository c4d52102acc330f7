/**
 * An ordinary received message, parsed for storage and for Resend's received-email object:
 * bare addresses (the display names stay in `headers`), the Received `for` clauses
 * (`received_for`), html and text bodies, headers by lower-case name, and the attachments in
 * MIME order. Also the two reads that need the content of the attachments again, from the raw
 * message (kept compressed; the content is not stored twice): one attachment's bytes, and the
 * html with its `cid:` images as `data:` URIs (Resend's default `html_format`).
 */
import PostalMime, { type Address, type Attachment } from 'postal-mime';

export interface ParsedAttachment {
  filename: string | null;
  size: number;
  contentType: string;
  /** Without angle brackets. */
  contentId: string | null;
  disposition: 'inline' | 'attachment' | null;
  content: Uint8Array;
}

export interface ParsedInbound {
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  messageId: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  receivedFor: string[];
  attachments: ParsedAttachment[];
}

/** Bare addresses of an address list, groups flattened. */
function bare(list: readonly Address[] | Address | undefined): string[] {
  if (list === undefined) return [];
  const out: string[] = [];
  for (const a of Array.isArray(list) ? list : [list]) {
    if (a.group) for (const m of a.group) out.push(m.address);
    else if (a.address) out.push(a.address);
  }
  return out.filter((x) => x !== '');
}

const FOR_CLAUSE = /\bfor\s+<?([^\s<>;"]+@[^\s<>;"]+?)>?\s*(?:;|$|\s)/i;

/** The address of a Received header's `for` clause (RFC 5321 section 4.4), if it has one. */
export function receivedForAddress(received: string): string | undefined {
  return FOR_CLAUSE.exec(received)?.[1];
}

function bytes(content: Attachment['content']): Uint8Array {
  if (typeof content === 'string') return new TextEncoder().encode(content);
  return content instanceof ArrayBuffer ? new Uint8Array(content) : content;
}

function disposition(d: string | null): 'inline' | 'attachment' | null {
  const v = d?.toLowerCase();
  return v === 'inline' || v === 'attachment' ? v : null;
}

const parse = (raw: Buffer | Uint8Array | string) => PostalMime.parse(raw, { forceRfc822Attachments: true });

function attachmentsOf(list: readonly Attachment[]): ParsedAttachment[] {
  return list.map((a) => {
    const content = bytes(a.content);
    return {
      filename: a.filename,
      size: content.byteLength,
      contentType: a.mimeType,
      contentId: a.contentId ? a.contentId.replace(/^<|>$/g, '') : null,
      disposition: disposition(a.disposition),
      content,
    };
  });
}

/** Parse a received message (its raw bytes, CRLF or LF). */
export async function parseInboundMessage(raw: Buffer | Uint8Array | string): Promise<ParsedInbound> {
  const email = await parse(raw);
  const headers: Record<string, string> = {};
  const receivedFor: string[] = [];
  for (const h of email.headers) {
    headers[h.key] = h.key in headers ? `${headers[h.key]}, ${h.value}` : h.value;
    if (h.key === 'received') {
      const r = receivedForAddress(h.value);
      if (r !== undefined && !receivedFor.some((x) => x.toLowerCase() === r.toLowerCase()))
        receivedFor.push(r);
    }
  }
  return {
    from: bare(email.from)[0] ?? null,
    to: bare(email.to),
    cc: bare(email.cc),
    bcc: bare(email.bcc),
    replyTo: bare(email.replyTo),
    subject: email.subject ?? '',
    messageId: email.messageId ?? '',
    html: email.html ?? null,
    text: email.text ?? null,
    headers,
    receivedFor,
    attachments: attachmentsOf(email.attachments),
  };
}

/** The `index`-th attachment (MIME order) of a received message, or null when there is none. */
export async function inboundAttachmentContent(
  raw: Buffer | Uint8Array | string,
  index: number,
): Promise<ParsedAttachment | null> {
  const email = await parse(raw);
  const a = email.attachments[index];
  return a ? attachmentsOf([a])[0]! : null;
}

/**
 * `html` with each `cid:<content-id>` reference (RFC 2392) to an attachment of the message
 * replaced by a `data:` URI of its content (RFC 2397); references to nothing stay as they are.
 */
export function inlineCidImages(html: string, attachments: readonly ParsedAttachment[]): string {
  const byCid = new Map(attachments.filter((a) => a.contentId).map((a) => [a.contentId!.toLowerCase(), a]));
  if (byCid.size === 0) return html;
  return html.replace(/cid:([^"'\s)>]+)/gi, (whole, cid: string) => {
    const a = byCid.get(decodeURIComponent(cid).toLowerCase());
    return a ? `data:${a.contentType};base64,${Buffer.from(a.content).toString('base64')}` : whole;
  });
}

/** Whether `html` refers to any `cid:` content (only then is the raw message parsed again). */
export const hasCidReferences = (html: string | null): boolean => html !== null && /cid:/i.test(html);

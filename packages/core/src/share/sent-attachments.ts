/**
 * The attachments of a sent email as Resend's `emails.attachments.list/get` show them. A sent
 * email keeps its attachments in its record in the order they were given (and sent: the MIME
 * builder keeps that order), without ids; each one's id is derived from the email's id and its
 * position, so every reader — the API, a download link, a shared page — names the same part
 * without an id having to be stored, and emails stored before this existed have ids too.
 *
 * The id is a UUID (Resend documents attachment ids as UUIDs) of version 8, the RFC 9562
 * section 5.8 layout for ids built by an application's own rule: the first 122 bits of
 * SHA-256(`<emailId>:<index>`), version and variant bits set.
 */
import { createHash } from 'node:crypto';
import type { AttachmentInput } from '@petrel/contracts';
import { base64DecodedLength } from '../validation/attachments.js';
import { idKey } from '../kernel/ids.js';

export interface SentAttachment {
  id: string;
  /** Position in the email's attachments (and in the sent message). */
  index: number;
  filename: string | undefined;
  /** Decoded bytes. */
  size: number;
  /** As given at send time (the API fills the type the message carried when absent). */
  content_type: string | undefined;
  content_id: string | undefined;
  /** A part with a Content-ID is an inline image referenced as `cid:` from the html. */
  content_disposition: 'inline' | 'attachment';
}

/** The id of the `index`th attachment of email `emailId` (see the header). */
export function sentAttachmentId(emailId: string, index: number): string {
  const h = createHash('sha256')
    .update(`${idKey(emailId)}:${index}`)
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // version 8
  h[8] = (h[8]! & 0x3f) | 0x80; // variant 10
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Every attachment of a sent email, in order, with its id. */
export function sentAttachments(emailId: string, attachments: readonly AttachmentInput[]): SentAttachment[] {
  return attachments.map((a, index) => ({
    id: sentAttachmentId(emailId, index),
    index,
    filename: a.filename,
    size: Math.max(0, base64DecodedLength(a.content)),
    content_type: a.content_type,
    content_id: a.content_id,
    content_disposition: a.content_id ? 'inline' : 'attachment',
  }));
}

/** The attachment of `emailId` with id `attachmentId` (any case), or null. */
export function findSentAttachment(
  emailId: string,
  attachments: readonly AttachmentInput[],
  attachmentId: string,
): SentAttachment | null {
  const wanted = idKey(attachmentId);
  return sentAttachments(emailId, attachments).find((a) => a.id === wanted) ?? null;
}

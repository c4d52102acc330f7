/**
 * Acceptance stage for remote attachments (resend-wire.md B.1): every attachment given as a
 * `path` URL is fetched now, through the SSRF guard of `fetchRemoteAttachment`, and replaced by
 * its base64 `content`, so the stored email never carries a `path` and the worker never fetches
 * anything. The decoded size of all attachments together stays within
 * LIMITS.attachmentsTotalBytes: each fetch may read only what the others left.
 *
 * Single sends only (batch validation refuses attachments). A failure is a PetrelError
 * `invalid_attachment` (422) naming `attachments[i].path`; it is thrown so the response keeps
 * that name. Inside a batch it would be reported per email instead.
 */
import { LIMITS, PetrelError, type AttachmentInput } from '@petrel/contracts';
import { VALIDATION_MESSAGES, base64DecodedLength } from '@petrel/core';
import { prefix, type PrepareStage } from '../acceptance.js';
import { fetchRemoteAttachment, type FetchAttachmentOptions } from './fetch-attachment.js';

export interface AttachmentStageOptions {
  /** Allow loopback / private destinations (WEBHOOK_ALLOW_PRIVATE_NETWORKS; development only). */
  allowPrivate: boolean;
  /** Time allowed for fetching all the attachments of one email. Default 15 s. */
  timeoutMs?: number;
  /** Resolver override (tests). */
  lookup?: FetchAttachmentOptions['lookup'];
  /** Connect hook (tests); see FetchAttachmentOptions. */
  connect?: FetchAttachmentOptions['connect'];
}

export const ATTACHMENT_FETCH_TIMEOUT_MS = 15_000;

export function attachmentStage(opts: AttachmentStageOptions): PrepareStage {
  const totalMs = opts.timeoutMs ?? ATTACHMENT_FETCH_TIMEOUT_MS;
  return async (_teamId, email, index, ctx) => {
    if (!email.attachments.some((a) => a.path !== undefined)) return { email };
    const p = prefix(index, ctx.batch);
    try {
      let used = 0;
      for (const a of email.attachments) {
        if (a.path === undefined) used += Math.max(0, base64DecodedLength(a.content));
      }
      const deadline = Date.now() + totalMs;
      const attachments: AttachmentInput[] = [];
      for (const [i, a] of email.attachments.entries()) {
        if (a.path === undefined) {
          attachments.push(a);
          continue;
        }
        const field = `${p}attachments[${i}].path`;
        const leftMs = deadline - Date.now();
        if (leftMs <= 0) {
          throw new PetrelError(
            'invalid_attachment',
            `${field}: not fetched, the attachments of an email must all be fetched within ${totalMs / 1000} s`,
          );
        }
        const got = await fetchRemoteAttachment(a.path, {
          allowPrivate: opts.allowPrivate,
          maxBytes: Math.max(0, LIMITS.attachmentsTotalBytes - used),
          timeoutMs: leftMs,
          field,
          ...(opts.lookup ? { lookup: opts.lookup } : {}),
          ...(opts.connect ? { connect: opts.connect } : {}),
        });
        used += got.content.length;
        const filename = a.filename ?? got.filename;
        const contentType = a.content_type ?? got.contentType;
        attachments.push({
          content: got.content.toString('base64'),
          ...(filename !== undefined ? { filename } : {}),
          ...(contentType !== undefined ? { content_type: contentType } : {}),
          ...(a.content_id !== undefined ? { content_id: a.content_id } : {}),
        });
      }
      if (used > LIMITS.attachmentsTotalBytes) {
        throw new PetrelError(
          'invalid_attachment',
          `${p}attachments: ${VALIDATION_MESSAGES.attachmentsTotal}`,
        );
      }
      return { email: { ...email, attachments } };
    } catch (err) {
      if (ctx.batch && err instanceof PetrelError) return { error: err.message };
      throw err;
    }
  };
}

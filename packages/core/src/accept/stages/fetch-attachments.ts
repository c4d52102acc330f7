/**
 * Acceptance stage for remote attachments (Resend's `attachments[].path`): every attachment given as a
 * `path` URL is fetched now, through the fetcher port (whose implementation guards against SSRF),
 * and replaced by its base64 `content`, so the stored email never carries a `path` and the worker
 * never fetches anything. The decoded size of all attachments together stays within
 * LIMITS.attachmentsTotalBytes: each fetch may read only what the others left, and all the
 * fetches of one email share one deadline.
 *
 * A refusal is `invalid_attachment` (422) naming `attachments[i].path`.
 */
import { LIMITS, type AttachmentInput, type EmailContent } from '@petrel/contracts';
import { base64DecodedLength, VALIDATION_MESSAGES } from '../../validation/index.js';
import type { AttachmentFetcher } from '../ports.js';
import { fieldPrefix, refuse, refusalFrom, type AcceptStage } from './stage.js';
import { systemClock, type Clock } from '../../kernel/clock.js';

/** Time allowed for fetching all the remote attachments of one email. */
export const ATTACHMENT_FETCH_TIMEOUT_MS = 15_000;

export interface FetchAttachmentsOptions {
  /** Overrides ATTACHMENT_FETCH_TIMEOUT_MS (tests). */
  timeoutMs?: number;
  /** Wall time: the system clock unless a test drives time. */
  clock?: Pick<Clock, 'now'>;
}

/** Decoded bytes of the attachments given inline. */
function inlineBytes(attachments: readonly AttachmentInput[]): number {
  let used = 0;
  for (const a of attachments) if (a.path === undefined) used += Math.max(0, base64DecodedLength(a.content));
  return used;
}

export function fetchAttachments(
  fetcher: AttachmentFetcher,
  opts: FetchAttachmentsOptions = {},
): AcceptStage {
  const totalMs = opts.timeoutMs ?? ATTACHMENT_FETCH_TIMEOUT_MS;
  const clock = opts.clock ?? systemClock;
  return async (email, ctx) => {
    if (!email.attachments.some((a) => a.path !== undefined)) return { email };
    const p = fieldPrefix(ctx);
    let used = inlineBytes(email.attachments);
    const deadline = clock.now() + totalMs;
    const attachments: AttachmentInput[] = [];
    for (const [i, a] of email.attachments.entries()) {
      if (a.path === undefined) {
        attachments.push(a);
        continue;
      }
      const field = `${p}attachments[${i}].path`;
      const leftMs = deadline - clock.now();
      if (leftMs <= 0) {
        return refuse(
          `${field}: not fetched, the attachments of an email must all be fetched within ${totalMs / 1000} s`,
          'invalid_attachment',
        );
      }
      let got;
      try {
        got = await fetcher.fetch(a.path, {
          maxBytes: Math.max(0, LIMITS.attachmentsTotalBytes - used),
          timeoutMs: leftMs,
          field,
        });
      } catch (err) {
        return refusalFrom(err);
      }
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
      return refuse(`${p}attachments: ${VALIDATION_MESSAGES.attachmentsTotal}`, 'invalid_attachment');
    }
    const fetched: EmailContent = { ...email, attachments };
    return { email: fetched };
  };
}

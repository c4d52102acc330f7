/**
 * The wire side of /emails that is mapping, not rules: an email record in Resend's email object
 * shape, the `x-batch-validation` header, the list's search filters and the reschedule body.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { validationError } from '@petrel/contracts';
import type { EmailSearchQuery, RecipientOutcome } from '@petrel/core';
import type { EmailRecord } from '@petrel/store';
import { queryParam } from './pagination.js';

/** PATCH /emails/:id (Resend's UpdateEmailOptions). */
export const rescheduleSchema = z.strictObject({ scheduled_at: z.string().min(1) });

/** The list filters of the query string (a Petrel extension, the dashboard's search), each given at most once. */
export function searchQuery(req: Request): EmailSearchQuery {
  const out: EmailSearchQuery = {};
  for (const name of ['to', 'status', 'tag', 'subject'] as const) {
    const v = queryParam(req, name);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/**
 * The wire form of an email (GET /emails/:id; `full` adds html, text, tags and object). With
 * `full`, `recipients` is added when some recipients were refused while the others got the
 * message: each address with `delivered` or `bounced` and the bounce's reason. It is an extra
 * property beyond Resend's email object, present only then, so clients that do not know it are
 * unaffected.
 */
export function emailToWire(
  r: EmailRecord,
  full: boolean,
  recipients?: readonly RecipientOutcome[],
): Record<string, unknown> {
  const c = r.content;
  const base: Record<string, unknown> = {
    id: r.id,
    to: c.to,
    from: c.from,
    created_at: r.createdAt,
    subject: c.subject ?? '',
    bcc: c.bcc.length ? c.bcc : null,
    cc: c.cc.length ? c.cc : null,
    reply_to: c.reply_to.length ? c.reply_to : null,
    last_event: r.status,
    scheduled_at: r.scheduledAt,
    message_id: r.messageId,
  };
  if (!full) return base;
  return {
    object: 'email',
    ...base,
    html: c.html ?? null,
    text: c.text ?? null,
    tags: c.tags,
    // the custom headers given at send time (a Petrel extension the dashboard shows; `{}` for none)
    headers: c.headers,
    ...(c.topic_id ? { topic_id: c.topic_id } : {}),
    ...(r.template ? { template_id: r.template.id } : {}),
    ...(recipients?.length ? { recipients } : {}),
  };
}

/** `x-batch-validation`, Resend's batch header: strict unless the client asks for permissive. */
export function batchMode(req: Pick<Request, 'get'>): 'strict' | 'permissive' {
  const raw = req.get('x-batch-validation');
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'strict') return 'strict';
  if (raw.toLowerCase() === 'permissive') return 'permissive';
  throw validationError('x-batch-validation: must be strict or permissive', 400);
}

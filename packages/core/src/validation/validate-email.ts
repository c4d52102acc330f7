/**
 * Validation of one email of a send request (spec 2.1–2.4, 4.1, 7, 8) into the normalised
 * `EmailContent`. Pure and synchronous; runs for every email at ingest, so it is hand-written
 * (no schema library) and allocates little on the happy path. It never throws for bad input:
 * the result carries the first rule broken, as `<path>: <rule>`.
 */
import type { EmailContent } from '@petrel/contracts';
import { LIMITS, SEND_EMAIL_FIELDS } from '@petrel/contracts';
import { readAttachments } from './attachments.js';
import {
  FieldError,
  assertKnownKeys,
  child,
  fail,
  isRecord,
  optionalString,
  rootName,
} from './field-error.js';
import {
  readAddress,
  readAddressList,
  readHeaderText,
  readHeaders,
  readTags,
  readTopicId,
} from './fields.js';
import { FIELD_HINTS, MSG } from './rules.js';
import { parseScheduledAt } from './scheduled-at.js';
import { readTemplate } from './template-ref.js';

export interface ValidateEmailOptions {
  /** The request's clock; `scheduled_at` is resolved against it. */
  now: Date;
  /** `batch` refuses attachments and scheduled_at and prefixes messages with `emails[index].`. */
  context: 'single' | 'batch';
  /** Position in the batch array (batch context only). */
  index?: number;
}

export type ValidateEmailResult = { ok: true; email: EmailContent } | { ok: false; message: string };

const EMAIL_FIELDS: ReadonlySet<string> = new Set(SEND_EMAIL_FIELDS);
const BATCH_UNSUPPORTED = ['attachments', 'scheduled_at'] as const;

/** `null` counts as absent for optional fields (clients that serialise unset values as null). */
const given = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Validates one email. With a `template`, `from` and `subject` may be left out (they come out
 * as `''` for the template to supply); without one they are required. `to` is always required.
 */
export function validateEmail(body: unknown, opts: ValidateEmailOptions): ValidateEmailResult {
  const root = opts.context === 'batch' ? `emails[${opts.index ?? 0}]` : '';
  try {
    return { ok: true, email: readEmail(body, opts, root) };
  } catch (err) {
    if (err instanceof FieldError) return { ok: false, message: err.message };
    throw err;
  }
}

function readEmail(body: unknown, opts: ValidateEmailOptions, root: string): EmailContent {
  if (!isRecord(body)) fail(rootName(root), MSG.object);
  assertKnownKeys(body, EMAIL_FIELDS, FIELD_HINTS, rootName(root));
  if (opts.context === 'batch') {
    for (const field of BATCH_UNSUPPORTED) {
      if (given(body[field])) fail(child(root, field), MSG.notInBatch);
    }
  }
  const hasTemplate = given(body.template);
  if (hasTemplate && (given(body.html) || given(body.text) || body.react !== undefined)) {
    fail(child(root, 'template'), MSG.templateConflict);
  }
  if (body.react !== undefined) fail(child(root, 'react'), MSG.react);

  const email: EmailContent = {
    from: readTemplatable(body.from, child(root, 'from'), hasTemplate, readAddress),
    to: readAddressList(body.to, child(root, 'to'), 1, LIMITS.recipientsInTo),
    cc: readAddressList(body.cc, child(root, 'cc')),
    bcc: readAddressList(body.bcc, child(root, 'bcc')),
    reply_to: readAddressList(body.reply_to, child(root, 'reply_to')),
    subject: readTemplatable(body.subject, child(root, 'subject'), hasTemplate, readHeaderText),
    headers: readHeaders(body.headers, child(root, 'headers')),
    tags: readTags(body.tags, child(root, 'tags')),
    attachments: readAttachments(body.attachments, child(root, 'attachments')),
  };
  const html = optionalString(body.html, child(root, 'html'));
  if (html !== undefined) email.html = html;
  const text = optionalString(body.text, child(root, 'text'));
  if (text !== undefined) email.text = text;
  if (hasTemplate) email.template = readTemplate(body.template, child(root, 'template'));
  const topicId = readTopicId(body.topic_id, child(root, 'topic_id'));
  if (topicId !== undefined) email.topic_id = topicId;
  const scheduledAt = optionalString(body.scheduled_at, child(root, 'scheduled_at'));
  if (scheduledAt !== undefined) {
    const parsed = parseScheduledAt(scheduledAt, opts.now);
    if (!parsed.ok) fail(child(root, 'scheduled_at'), parsed.message);
    email.scheduled_at = parsed.iso;
  }
  return email;
}

/** A field the template may supply: absent, null or `''` is fine with a template (→ `''`). */
function readTemplatable(
  value: unknown,
  path: string,
  hasTemplate: boolean,
  read: (value: unknown, path: string) => string,
): string {
  if (value === undefined || value === null || value === '') {
    if (!hasTemplate) fail(path, MSG.required);
    return '';
  }
  return read(value, path);
}

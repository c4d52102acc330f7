/**
 * Wire shapes of the email-sending endpoints: `POST /emails` and `POST /emails/batch`
 * (Resend's send and batch endpoints). Requests are plain types here: their zod schemas live with
 * the validation in `@petrel/core`, which also normalises them (address lists to arrays, defaults)
 * and resolves `scheduled_at` against the request's clock; responses are zod schemas so tests and
 * clients can parse what the API returns.
 */
import { z } from 'zod';

/** One address or several: `"a@b.c"`, `"Jane <a@b.c>"` or an array of those. */
export type AddressListInput = string | string[];

/** Tag on a send request: both parts `[A-Za-z0-9_-]{1,256}`. */
export interface TagInput {
  name: string;
  value: string;
}

/** Attachment on a single send: exactly one of `content` (base64) or `path` (http(s) URL). */
export interface AttachmentWire {
  content?: string;
  path?: string;
  filename?: string;
  content_type?: string;
  content_id?: string;
}

/** Template reference: a template's id or alias and the variable values. */
export interface TemplateRefInput {
  /** Template id or alias. */
  id: string;
  variables?: Record<string, string | number>;
}

/** Body of `POST /emails`. `from` and `subject` may be left out when the template supplies them. */
export interface SendEmailRequest {
  from?: string;
  to: AddressListInput;
  subject?: string;
  cc?: AddressListInput;
  bcc?: AddressListInput;
  reply_to?: AddressListInput;
  html?: string;
  /** `''` turns off the text part generated from html. */
  text?: string;
  headers?: Record<string, string>;
  tags?: TagInput[];
  attachments?: AttachmentWire[];
  /** ISO 8601 or natural language (`"in 1 hour"`), at most 30 days ahead. */
  scheduled_at?: string;
  template?: TemplateRefInput;
  /** `null` is the same as absent. */
  topic_id?: string | null;
}

/** One element of the `POST /emails/batch` array: attachments and scheduled_at are not supported. */
export type BatchEmailRequest = Omit<SendEmailRequest, 'attachments' | 'scheduled_at'>;

/** Top-level fields a send request may carry; `react` is known only to be refused with a clear message. */
export const SEND_EMAIL_FIELDS = [
  'from',
  'to',
  'subject',
  'cc',
  'bcc',
  'reply_to',
  'html',
  'text',
  'react',
  'headers',
  'tags',
  'attachments',
  'scheduled_at',
  'template',
  'topic_id',
] as const;
export type SendEmailField = (typeof SEND_EMAIL_FIELDS)[number];

/** Request header that picks the batch validation mode; absent means strict. */
export const BATCH_VALIDATION_HEADER = 'x-batch-validation';
export const BATCH_VALIDATION_MODES = ['strict', 'permissive'] as const;
export type BatchValidationMode = (typeof BATCH_VALIDATION_MODES)[number];

/** Response of `POST /emails`. */
export const sendEmailResponseSchema = z.object({ id: z.string() });
export type SendEmailResponse = z.infer<typeof sendEmailResponseSchema>;

/** One refused element of a permissive batch: `index` is its 0-based position in the request. */
export const batchItemErrorSchema = z.object({
  index: z.number().int().nonnegative(),
  message: z.string(),
});
export type BatchItemError = z.infer<typeof batchItemErrorSchema>;

/**
 * Response of `POST /emails/batch`. Strict mode: `data[i]` belongs to request element i and
 * `errors` is absent. Permissive mode: `data` holds only the created emails, in request order,
 * and `errors` lists the refused ones.
 */
export const sendBatchResponseSchema = z.object({
  data: z.array(sendEmailResponseSchema),
  errors: z.array(batchItemErrorSchema).optional(),
});
export type SendBatchResponse = z.infer<typeof sendBatchResponseSchema>;

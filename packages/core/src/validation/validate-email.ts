/**
 * Validation of one email of a send request into the normalised
 * `EmailContent`, as zod schemas. Pure and synchronous; it never throws for bad input: the
 * result carries the first rule broken, as `<path>: <rule>` (`formatIssue`, contracts).
 *
 * The order of the rules is the order of the checks: the whole-body rules first (an object,
 * no unknown field, nothing batch cannot carry, template alone or with no html/text/react),
 * then each field in `SEND_EMAIL_FIELDS` order, then the content rule, then `scheduled_at`,
 * which needs the request's clock.
 */
import type { AttachmentInput, EmailContent, Tag } from '@petrel/contracts';
import { SEND_EMAIL_FIELDS, fieldMessage, formatIssue } from '@petrel/contracts';
import { z } from 'zod';
import { attachments } from './attachments.js';
import { addIssue, given, isRecord } from './checks.js';
import {
  asList,
  headerText,
  headers,
  optionalAddress,
  optionalList,
  requiredAddress,
  requiredHeaderText,
  tags,
  toList,
  topicId,
} from './fields.js';
import { MSG } from './rules.js';
import { parseScheduledAt } from './scheduled-at.js';
import { templateRef } from './template-ref.js';

export interface ValidateEmailOptions {
  /** The request's instant (epoch ms); `scheduled_at` is resolved against it. */
  nowMs: number;
  /** `batch` refuses attachments and scheduled_at and prefixes messages with `emails[index].`. */
  context: 'single' | 'batch';
  /** Position in the batch array (batch context only). */
  index?: number;
}

export type ValidateEmailResult = { ok: true; email: EmailContent } | { ok: false; message: string };

type Context = ValidateEmailOptions['context'];

const EMAIL_FIELDS: ReadonlySet<string> = new Set(SEND_EMAIL_FIELDS);
const BATCH_UNSUPPORTED = ['attachments', 'scheduled_at'] as const;

/** What the field schemas produce, before defaults and `scheduled_at` are applied. */
interface ParsedEmail {
  from?: string | null;
  to: string | string[];
  cc?: string | string[] | null;
  bcc?: string | string[] | null;
  reply_to?: string | string[] | null;
  subject?: string | null;
  headers?: Record<string, string> | null;
  tags?: Tag[] | null;
  attachments?: AttachmentInput[] | null;
  html?: string | null;
  text?: string | null;
  template?: { id: string; variables?: Record<string, string | number> | null };
  topic_id?: string | null;
  scheduled_at?: string | null;
}

const optionalText = z.string(MSG.string).nullish();

/** Rules about the body as a whole, checked before any field. */
function bodyRules(context: Context, templated: boolean) {
  return z.custom<Record<string, unknown>>(isRecord, { error: MSG.object, abort: true }).check((payload) => {
    const body = payload.value;
    let unknown: string[] | undefined;
    for (const key of Object.keys(body)) if (!EMAIL_FIELDS.has(key)) (unknown ??= []).push(key);
    if (unknown !== undefined) {
      payload.issues.push({
        code: 'unrecognized_keys',
        keys: unknown,
        input: body,
        path: [],
        continue: true,
      });
    }
    if (context === 'batch') {
      for (const field of BATCH_UNSUPPORTED)
        if (given(body[field])) addIssue(payload, [field], MSG.notInBatch);
    }
    // A template brings its own html and text: giving them too would leave two sources of content.
    if (templated && (given(body.html) || given(body.text) || body.react !== undefined)) {
      addIssue(payload, ['template'], MSG.templateConflict);
    }
    if (body.react !== undefined) addIssue(payload, ['react'], MSG.react);
  });
}

/**
 * The fields, in the order their rules are checked. With a template, `from` and `subject` may be
 * left out (the template supplies them); `to` is always required.
 */
function fields(context: Context, templated: boolean) {
  return z.object({
    from: templated ? optionalAddress : requiredAddress,
    to: toList,
    cc: optionalList,
    bcc: optionalList,
    reply_to: optionalList,
    subject: templated ? headerText.nullish() : requiredHeaderText,
    headers,
    tags,
    ...(context === 'single' ? { attachments } : {}),
    html: optionalText,
    text: optionalText,
    ...(templated ? { template: templateRef } : {}),
    topic_id: topicId,
    ...(context === 'single' ? { scheduled_at: optionalText } : {}),
  });
}

/**
 * Without a template the email needs content of its own. `text: ""` alone is not content: it only
 * turns off the text part generated from html, and there is no html to generate from.
 */
function contentRule(payload: z.core.ParsePayload<{ html?: string | null; text?: string | null }>): void {
  const { html, text } = payload.value;
  if (
    (html === undefined || html === null || html === '') &&
    (text === undefined || text === null || text === '')
  ) {
    addIssue(payload, [], text === '' ? MSG.noContentEmptyText : MSG.noContent);
  }
}

function emailSchema(context: Context, templated: boolean): z.ZodType<ParsedEmail> {
  const schema = bodyRules(context, templated).pipe(fields(context, templated));
  return (templated ? schema : schema.check(contentRule)) as unknown as z.ZodType<ParsedEmail>;
}

const SCHEMAS: Readonly<
  Record<Context, readonly [plain: z.ZodType<ParsedEmail>, templated: z.ZodType<ParsedEmail>]>
> = {
  single: [emailSchema('single', false), emailSchema('single', true)],
  batch: [emailSchema('batch', false), emailSchema('batch', true)],
};

/** Validates one email. */
export function validateEmail(body: unknown, opts: ValidateEmailOptions): ValidateEmailResult {
  const templated = isRecord(body) && given(body.template);
  const result = SCHEMAS[opts.context][templated ? 1 : 0].safeParse(body);
  const prefix = opts.context === 'batch' ? ['emails', opts.index ?? 0] : [];
  if (!result.success) return { ok: false, message: formatIssue(result.error.issues[0]!, { prefix }) };
  const p = result.data;
  const email: EmailContent = {
    from: p.from ?? '',
    to: asList(p.to),
    cc: asList(p.cc),
    bcc: asList(p.bcc),
    reply_to: asList(p.reply_to),
    subject: p.subject ?? '',
    headers: p.headers ?? (Object.create(null) as Record<string, string>),
    tags: p.tags ?? [],
    attachments: p.attachments ?? [],
  };
  if (given(p.html)) email.html = p.html!;
  if (given(p.text)) email.text = p.text!;
  if (p.template !== undefined) {
    const variables = p.template.variables ?? (Object.create(null) as Record<string, string | number>);
    email.template = { id: p.template.id, variables };
  }
  if (given(p.topic_id)) email.topic_id = p.topic_id!;
  if (given(p.scheduled_at)) {
    const parsed = parseScheduledAt(p.scheduled_at!, opts.nowMs);
    if (!parsed.ok) return { ok: false, message: fieldMessage([...prefix, 'scheduled_at'], parsed.message) };
    email.scheduled_at = parsed.iso;
  }
  return { ok: true, email };
}

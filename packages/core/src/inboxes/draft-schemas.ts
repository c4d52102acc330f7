/**
 * Wire schemas of drafts, replies and forwards (the SDK's `inboxes.drafts.*` and
 * `inboxes.threads.emails.reply/forward`, resend 6.38; snake case as the SDK sends it). The
 * documented limits: a draft's files total at most 25 MB, an empty file is refused, a reply or
 * forward takes up to 10 files and 25 MB of `content` (a forward counting the original's), and
 * `In-Reply-To`, `References` and `Reply-To` are Petrel's to set (any letter case: 422).
 */
import { z } from 'zod';
import { addIssue, headerSafe, stringWith } from '../validation/checks.js';
import { headerText, headers, optionalList, toList } from '../validation/fields.js';
import { MSG } from '../validation/rules.js';
import { base64DecodedLength } from '../validation/attachments.js';

const MB = 1024 * 1024;

export const DRAFT_LIMITS = {
  /** CreateInboxDraftContent.attachments: "can total at most 25 MB". */
  draftFilesBytes: 25 * MB,
  /** Reply/forward attachments: "Up to 10 files", "at most 25 MB of `content`". */
  sendFiles: 10,
  sendFilesBytes: 25 * MB,
  /** How long a sent draft is kept (its `email_id` readable, a send replayable): the Idempotency-Key window. */
  sentDraftTtlMs: 24 * 60 * 60 * 1000,
  /** One deadline for downloading a draft's `path` file. */
  pathFetchTimeoutMs: 15_000,
} as const;

/** Headers Petrel sets on a reply, forward or draft send (the SDK's doc comments). */
export const THREAD_HEADERS = ['in-reply-to', 'references', 'reply-to'] as const;

export const DRAFT_RULES = {
  atLeastOne: (fields: string) => `at least one of ${fields} is required`,
  threadPair: 'thread_id and reply_to_email_id go together: give both for a reply draft, or neither',
  noThread: (id: string) => `no thread ${id} in this inbox`,
  notInThread: (id: string) => `is not a message of thread ${id}`,
  threadHeader: 'is set by Petrel on replies, forwards and drafts and cannot be a custom header',
  emptyFile: 'must not be an empty file',
  filename: 'is required',
  contentType: 'is required with content',
  draftFilesTotal: `the files of a draft must total at most ${DRAFT_LIMITS.draftFilesBytes / MB} MB`,
  sendFiles: `at most ${DRAFT_LIMITS.sendFiles} files`,
  sendFilesTotal: `the files' content must total at most ${DRAFT_LIMITS.sendFilesBytes / MB} MB`,
  forwardFilesTotal: `the files' content and the original's attachments must total at most ${
    DRAFT_LIMITS.sendFilesBytes / MB
  } MB`,
  forwardFiles: `the files and the original's attachments: at most ${DRAFT_LIMITS.sendFiles} files`,
  sent: 'was sent already and can no longer be changed',
  noRecipient: 'is required to send a draft that is not a reply',
} as const;

const metadata = stringWith((v) => (v === '' ? MSG.nonEmpty : headerSafe(v) ? undefined : MSG.headerUnsafe));

/** A draft's file: `filename`, and `content` (base64, with `content_type`) or an http(s) `path`. */
/** A file's fields, as POST /emails names them. */
const fileObject = z.object(
  {
    content: z.string({ error: MSG.string }).nullish(),
    path: z.string({ error: MSG.string }).nullish(),
    filename: metadata.nullish(),
    content_type: metadata.nullish(),
    content_id: metadata.nullish(),
  },
  { error: MSG.object },
);

const draftFile = fileObject.check((p) => {
  const { content, path, filename, content_type } = p.value;
  if (filename == null) addIssue(p, ['filename'], DRAFT_RULES.filename);
  if (content != null && content !== '' && path != null) addIssue(p, [], MSG.attachmentBothSources);
  else if (content != null && content !== '') {
    const bytes = base64DecodedLength(content);
    if (bytes < 0) addIssue(p, ['content'], MSG.base64);
    else if (bytes === 0) addIssue(p, ['content'], DRAFT_RULES.emptyFile);
    if (content_type == null) addIssue(p, ['content_type'], DRAFT_RULES.contentType);
  } else if (path != null) {
    if (!/^https?:\/\//i.test(path)) addIssue(p, ['path'], MSG.attachmentPath);
  } else if (content === '') addIssue(p, ['content'], DRAFT_RULES.emptyFile);
  else addIssue(p, [], MSG.attachmentSource);
});
export type DraftFileInput = z.infer<typeof draftFile>;

const draftFiles = z.array(draftFile, { error: MSG.array }).check((p) => {
  let total = 0;
  for (const f of p.value) if (f.content) total += Math.max(0, base64DecodedLength(f.content));
  if (total > DRAFT_LIMITS.draftFilesBytes) addIssue(p, [], DRAFT_RULES.draftFilesTotal);
});

const body = z.string({ error: MSG.string });

const draftContent = {
  to: optionalList,
  cc: optionalList,
  bcc: optionalList,
  subject: headerText.nullish(),
  text: body.nullish(),
  html: body.nullish(),
};
const CONTENT_FIELDS = 'to, cc, bcc, subject, text, html, attachments';

/** POST /inboxes/:x/drafts (CreateInboxDraftOptions). */
export const createDraftSchema = z
  .object({
    ...draftContent,
    attachments: draftFiles.nullish(),
    thread_id: z.string({ error: MSG.string }).nullish(),
    reply_to_email_id: z.string({ error: MSG.string }).nullish(),
  })
  .check((p) => {
    const v = p.value;
    const given = (['to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachments'] as const).some(
      (k) => v[k] != null,
    );
    if (!given) addIssue(p, [], DRAFT_RULES.atLeastOne(CONTENT_FIELDS));
    if ((v.thread_id == null) !== (v.reply_to_email_id == null))
      addIssue(p, [v.thread_id == null ? 'thread_id' : 'reply_to_email_id'], DRAFT_RULES.threadPair);
  });
export type CreateDraftInput = z.infer<typeof createDraftSchema>;

/**
 * PATCH /inboxes/:x/drafts/:d (UpdateInboxDraftOptions): a field given replaces it (`null`
 * clears it); `attachments` replaces every file (`[]` or `null` removes them all).
 */
export const updateDraftSchema = z
  .object({ ...draftContent, attachments: draftFiles.nullish() })
  .check((p) => {
    const given = (['to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachments'] as const).some(
      (k) => p.value[k] !== undefined,
    );
    if (!given) addIssue(p, [], DRAFT_RULES.atLeastOne(CONTENT_FIELDS));
  });
export type UpdateDraftInput = z.infer<typeof updateDraftSchema>;

/** `headers` of a reply, forward or draft send: as POST /emails, minus the threading headers. */
const sendHeaders = headers.nullish().check((p) => {
  for (const name of Object.keys(p.value ?? {}))
    if ((THREAD_HEADERS as readonly string[]).includes(name.toLowerCase()))
      addIssue(p, [name], DRAFT_RULES.threadHeader);
});

/** Files of a reply or forward, as POST /emails takes them (checked again there). */
const sendFiles = z
  .array(fileObject, { error: MSG.array })
  .max(DRAFT_LIMITS.sendFiles, { error: DRAFT_RULES.sendFiles })
  .check((p) => {
    let total = 0;
    p.value.forEach((f, i) => {
      if (f.content === '') addIssue(p, [i, 'content'], DRAFT_RULES.emptyFile);
      else if (f.content) total += Math.max(0, base64DecodedLength(f.content));
    });
    if (total > DRAFT_LIMITS.sendFilesBytes) addIssue(p, [], DRAFT_RULES.sendFilesTotal);
  });
export type SendFileInput = z.infer<typeof sendFiles>[number];

/** POST …/threads/:t/emails/:e/reply (ReplyInboxThreadEmailOptions). */
export const replySchema = z
  .object({
    html: body.nullish(),
    text: body.nullish(),
    cc: optionalList,
    bcc: optionalList,
    subject: headerText.nullish(),
    reply_all: z.boolean({ error: 'must be a boolean' }).nullish(),
    attachments: sendFiles.nullish(),
    headers: sendHeaders,
  })
  .check((p) => {
    if (p.value.html == null && p.value.text == null) addIssue(p, [], DRAFT_RULES.atLeastOne('html, text'));
  });
export type ReplyInput = z.infer<typeof replySchema>;

/** POST …/threads/:t/emails/:e/forward (ForwardInboxThreadEmailOptions). */
export const forwardSchema = z.object({
  to: toList,
  cc: optionalList,
  bcc: optionalList,
  html: body.nullish(),
  text: body.nullish(),
  subject: headerText.nullish(),
  attachments: sendFiles.nullish(),
  headers: sendHeaders,
});
export type ForwardInput = z.infer<typeof forwardSchema>;

/** POST /inboxes/:x/drafts/:d/send (SendInboxDraftOptions): the SDK sends no body without headers. */
export const sendDraftSchema = z.object({ headers: sendHeaders });
export type SendDraftInput = z.infer<typeof sendDraftSchema>;

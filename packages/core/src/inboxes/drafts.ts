/**
 * Drafts of an inbox (the SDK's `inboxes.drafts.*`): standalone, or a reply to one message of a
 * thread (`thread_id` + `reply_to_email_id`), with files. A draft is editable until it is sent;
 * sending (replies.ts) marks it sent with its `email_id`. An open reply draft counts in its
 * thread's `has_draft`, every open draft in the inbox's `drafts`. Each write publishes its
 * `inbox.draft.*` event in the same store step.
 */
import {
  fieldMessage,
  notFound,
  PetrelError,
  validationError,
  type InboxMessageRecord,
  type InboxRecord,
  type InboxThreadRecord,
  type TeamEvent,
} from '@petrel/contracts';
import { checkIdempotencyKey } from '../accept/idempotency.js';
import type { AttachmentFetcher } from '../accept/ports.js';
import { idempotentPost, type IdempotentAnswer } from '../custom-events/idempotent-post.js';
import type { EventIdempotencyPort } from '../custom-events/ports.js';
import { found } from '../kernel/found.js';
import { deterministicEmailId, idKey } from '../kernel/ids.js';
import type { Page, PageRequest } from '../kernel/page.js';
import { asList } from '../validation/fields.js';
import { base64DecodedLength } from '../validation/attachments.js';
import {
  DRAFT_LIMITS,
  DRAFT_RULES,
  type CreateDraftInput,
  type DraftFileInput,
  type UpdateDraftInput,
} from './draft-schemas.js';
import type { InboxEventSource, InboxesPort } from './ports.js';
import { labelMap, type InboxIds } from './use-cases.js';
import { inboxEventData, messageHead, threadSummary, type ThreadSummary } from './wire.js';
import type { Clock } from '../kernel/clock.js';

export type InboxDraftType = 'standalone' | 'reply';

/** A draft's file as the SDK shows it (`InboxDraftAttachment`). */
export interface InboxDraftAttachmentRecord {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

/** A draft as stored, in wire names (`InboxDraft`). */
export interface InboxDraftRecord {
  id: string;
  type: InboxDraftType;
  to: string[] | null;
  cc: string[];
  bcc: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  thread_id: string | null;
  reply_to_email_id: string | null;
  /** The sent email, once the draft is sent. */
  email_id: string | null;
  created_at: string;
  updated_at: string;
  attachments: InboxDraftAttachmentRecord[];
}

/** A draft file's bytes (base64), stored beside the draft. */
export interface DraftFile {
  id: string;
  content: string;
}

/** An `inbox.draft.*` event to publish with a write. */
export interface DraftEvent {
  type: Extract<TeamEvent['type'], `inbox.draft.${string}`>;
  data: Record<string, unknown>;
}

export type DraftWriteOutcome = 'done' | 'missing' | 'sent';

export interface InboxDraftsPort {
  /** Stores a new draft; 'exists' when a draft with its id is there already (a retried create). */
  createDraft(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    files: readonly DraftFile[],
    event: DraftEvent,
  ): Promise<'created' | 'exists'>;
  draft(teamId: string, inboxId: string, draftId: string): Promise<InboxDraftRecord | null>;
  draftFiles(teamId: string, inboxId: string, draftId: string): Promise<DraftFile[]>;
  /** Open drafts, most recently updated first. */
  drafts(teamId: string, inboxId: string, page: PageRequest): Promise<Page<InboxDraftRecord> | null>;
  /** Replaces an open draft (and its files when `files` is given). */
  updateDraft(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    files: readonly DraftFile[] | undefined,
    event: DraftEvent,
  ): Promise<DraftWriteOutcome>;
  removeDraft(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    event: DraftEvent,
  ): Promise<DraftWriteOutcome>;
  /** Marks an open draft sent (`email_id` set, files dropped, kept `ttlMs` for reads and replays). */
  markDraftSent(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    ttlMs: number,
    event: DraftEvent,
  ): Promise<DraftWriteOutcome>;
}

export interface DraftPorts {
  inboxes: InboxesPort;
  drafts: InboxDraftsPort;
  clock: Pick<Clock, 'now'>;
  ids: InboxIds;
  /** Downloads a file given by `path` (the accept path's fetcher); without it a `path` is refused. */
  fetcher?: AttachmentFetcher;
}

// ---------------------------------------------------------------------------------------------
// Wire

/** `InboxDraft` (GET). */
export function draftObject(d: InboxDraftRecord) {
  return { object: 'inbox_draft' as const, ...d };
}

/** What a text preview of a draft shows: its text, or its html's words. */
export function snippetOf(text: string | null, html: string | null, max = 200): string | null {
  const source =
    text ??
    html
      ?.replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&nbsp;/gi, ' ');
  if (!source) return null;
  const s = source.replace(/\s+/g, ' ').trim();
  return s === '' ? null : s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** `InboxDraftListItem` (GET …/drafts). */
export function draftListItem(d: InboxDraftRecord) {
  return {
    id: d.id,
    type: d.type,
    to: d.to,
    cc: d.cc,
    bcc: d.bcc,
    subject: d.subject,
    snippet: snippetOf(d.text, d.html),
    thread_id: d.thread_id,
    reply_to_email_id: d.reply_to_email_id,
    updated_at: d.updated_at,
    attachments: d.attachments,
  };
}

/** `InboxEventDraft`: the draft without its bodies. */
export function draftHead(d: InboxDraftRecord) {
  const { html: _html, text: _text, ...head } = draftObject(d);
  return head;
}

/** `data` of an inbox.draft.created/updated/deleted event (`InboxDraftEventData`). */
export function draftEventData(
  source: InboxEventSource,
  inboxId: string,
  d: InboxDraftRecord,
  thread: { record: InboxThreadRecord; summary: ThreadSummary } | null,
) {
  return inboxEventData(source, inboxId, {
    ...(d.thread_id !== null && { thread_id: d.thread_id }),
    draft_id: d.id,
    ...(thread && { thread: thread.summary }),
    draft: draftHead(d),
  });
}

/** `data` of inbox.draft.sent (`InboxDraftSentEventData`): the sent email's and the draft's. */
export function draftSentData(
  source: InboxEventSource,
  inboxId: string,
  d: InboxDraftRecord,
  threadId: string,
  thread: ThreadSummary | null,
  message: InboxMessageRecord,
) {
  return inboxEventData(source, inboxId, {
    thread_id: threadId,
    ...(thread && { thread }),
    email_id: message.id,
    email: messageHead(message),
    draft_id: d.id,
    draft: draftHead(d),
  });
}

async function threadView(ports: DraftPorts, teamId: string, inboxId: string, threadId: string | null) {
  if (!threadId) return null;
  const record = await ports.inboxes.thread(teamId, inboxId, threadId);
  if (!record) return null;
  return { record, summary: threadSummary(record, await labelMap(ports.inboxes, teamId, inboxId)) };
}

// ---------------------------------------------------------------------------------------------
// Use-cases

/** The draft, or 404 (another inbox's or team's draft is not found either). */
export async function findDraft(
  drafts: InboxDraftsPort,
  teamId: string,
  inboxId: string,
  draftId: string,
): Promise<InboxDraftRecord> {
  return found(drafts.draft(teamId, inboxId, idKey(draftId)), 'Draft');
}

/** The message a reply draft answers: it must be a message of that thread (422 naming the field). */
export async function replyTarget(
  inboxes: InboxesPort,
  teamId: string,
  inboxId: string,
  threadId: string,
  emailId: string,
  fields: { thread: string; email: string },
): Promise<{ thread: InboxThreadRecord; message: InboxMessageRecord }> {
  const thread = await inboxes.thread(teamId, inboxId, idKey(threadId));
  if (!thread) throw validationError(fieldMessage([fields.thread], DRAFT_RULES.noThread(threadId)));
  const message = await inboxes.message(teamId, inboxId, idKey(emailId));
  if (!message || message.thread_id !== thread.id)
    throw validationError(fieldMessage([fields.email], DRAFT_RULES.notInThread(thread.id)));
  return { thread, message };
}

/** The files of a draft request: `content` as given, `path` downloaded now, 25 MB in all. */
async function draftFiles(
  input: readonly DraftFileInput[],
  ports: DraftPorts,
): Promise<{ meta: InboxDraftAttachmentRecord[]; files: DraftFile[] }> {
  const meta: InboxDraftAttachmentRecord[] = [];
  const files: DraftFile[] = [];
  let total = 0;
  for (const [i, f] of input.entries()) {
    let content: string;
    let contentType = f.content_type ?? undefined;
    if (f.content) {
      content = f.content.replace(/[\s]/g, '');
      total += base64DecodedLength(content);
    } else {
      const field = `attachments[${i}].path`;
      if (!ports.fetcher) throw validationError(`${field}: files by path are not available here`);
      const fetched = await ports.fetcher.fetch(f.path!, {
        maxBytes: DRAFT_LIMITS.draftFilesBytes - total,
        timeoutMs: DRAFT_LIMITS.pathFetchTimeoutMs,
        field,
      });
      if (fetched.content.length === 0) throw validationError(`${field}: ${DRAFT_RULES.emptyFile}`);
      content = fetched.content.toString('base64');
      total += fetched.content.length;
      contentType ??= fetched.contentType;
    }
    if (total > DRAFT_LIMITS.draftFilesBytes)
      throw validationError(`attachments: ${DRAFT_RULES.draftFilesTotal}`);
    const id = ports.ids.newId();
    meta.push({
      id,
      filename: f.filename!,
      content_type: contentType ?? 'application/octet-stream',
      size: base64DecodedLength(content),
    });
    files.push({ id, content });
  }
  return { meta, files };
}

const list = (v: string | string[] | null | undefined) => asList(v);

/**
 * Creates a draft (standalone, or a reply to `reply_to_email_id` of `thread_id`). `draftId`
 * fixes the id (a create under an Idempotency-Key derives it, so a retry finds the same draft).
 * The agent runner calls this with `source: 'agent'` — a draft, never a send.
 */
export async function createDraft(
  cmd: {
    teamId: string;
    inbox: InboxRecord;
    input: CreateDraftInput;
    source: InboxEventSource;
    draftId?: string;
  },
  ports: DraftPorts,
): Promise<InboxDraftRecord> {
  const { teamId, inbox, input } = cmd;
  if (input.thread_id != null && input.reply_to_email_id != null) {
    await replyTarget(ports.inboxes, teamId, inbox.id, input.thread_id, input.reply_to_email_id, {
      thread: 'thread_id',
      email: 'reply_to_email_id',
    });
  }
  const { meta, files } = await draftFiles(input.attachments ?? [], ports);
  const iso = new Date(ports.clock.now()).toISOString();
  const reply = input.thread_id != null;
  const draft: InboxDraftRecord = {
    id: cmd.draftId ?? ports.ids.newId(),
    type: reply ? 'reply' : 'standalone',
    to: input.to == null ? null : list(input.to),
    cc: list(input.cc),
    bcc: list(input.bcc),
    subject: input.subject ?? null,
    html: input.html ?? null,
    text: input.text ?? null,
    thread_id: reply ? idKey(input.thread_id!) : null,
    reply_to_email_id: reply ? idKey(input.reply_to_email_id!) : null,
    email_id: null,
    created_at: iso,
    updated_at: iso,
    attachments: meta,
  };
  const thread = await threadView(ports, teamId, inbox.id, draft.thread_id);
  const outcome = await ports.drafts.createDraft(teamId, inbox.id, draft, files, {
    type: 'inbox.draft.created',
    data: draftEventData(cmd.source, inbox.id, draft, thread),
  });
  if (outcome === 'exists') return findDraft(ports.drafts, teamId, inbox.id, draft.id);
  return draft;
}

/** The operation a draft create's Idempotency-Key and derived id are scoped by. */
const CREATE_DRAFT = 'POST /inboxes/:inbox/drafts';

/**
 * POST …/drafts under an optional Idempotency-Key (the store POST /emails uses): the same key
 * and body replay the stored answer; the draft's id derives from the key, so a retry after a
 * crash finds the draft it created instead of making a second one.
 */
export async function createDraftOnce(
  cmd: {
    teamId: string;
    inbox: InboxRecord;
    input: CreateDraftInput;
    rawBody: unknown;
    idempotencyKey: string | undefined;
    source: InboxEventSource;
  },
  ports: DraftPorts & { idempotency: EventIdempotencyPort },
): Promise<IdempotentAnswer> {
  checkIdempotencyKey(cmd.idempotencyKey);
  const fingerprint = { [CREATE_DRAFT]: cmd.inbox.id, body: cmd.rawBody };
  return idempotentPost(cmd, fingerprint, ports.idempotency, 201, async (claim) => {
    const draftId =
      cmd.idempotencyKey !== undefined
        ? deterministicEmailId(cmd.teamId, cmd.idempotencyKey, CREATE_DRAFT, 0, claim.startedMs ?? 0)
        : undefined;
    const draft = await createDraft({ ...cmd, ...(draftId && { draftId }) }, ports);
    return JSON.stringify({ object: 'inbox_draft', id: draft.id });
  });
}

const sentConflict = () => new PetrelError('conflict', fieldMessage(['draft_id'], DRAFT_RULES.sent));

/** PATCH a draft: the fields given replace it; a sent draft is a 409. */
export async function updateDraft(
  cmd: {
    teamId: string;
    inbox: InboxRecord;
    draftId: string;
    input: UpdateDraftInput;
    source: InboxEventSource;
  },
  ports: DraftPorts,
): Promise<InboxDraftRecord> {
  const { teamId, inbox, input } = cmd;
  const current = await findDraft(ports.drafts, teamId, inbox.id, cmd.draftId);
  if (current.email_id) throw sentConflict();
  const replaced =
    input.attachments !== undefined ? await draftFiles(input.attachments ?? [], ports) : undefined;
  const nowMs = Math.max(ports.clock.now(), Date.parse(current.updated_at) + 1);
  const next: InboxDraftRecord = {
    ...current,
    ...(input.to !== undefined && { to: input.to === null ? null : list(input.to) }),
    ...(input.cc !== undefined && { cc: list(input.cc) }),
    ...(input.bcc !== undefined && { bcc: list(input.bcc) }),
    ...(input.subject !== undefined && { subject: input.subject }),
    ...(input.html !== undefined && { html: input.html }),
    ...(input.text !== undefined && { text: input.text }),
    ...(replaced && { attachments: replaced.meta }),
    updated_at: new Date(nowMs).toISOString(),
  };
  const thread = await threadView(ports, teamId, inbox.id, next.thread_id);
  const outcome = await ports.drafts.updateDraft(teamId, inbox.id, next, replaced?.files, {
    type: 'inbox.draft.updated',
    data: draftEventData(cmd.source, inbox.id, next, thread),
  });
  if (outcome === 'missing') throw notFound('Draft');
  if (outcome === 'sent') throw sentConflict();
  return next;
}

/** DELETE a draft (an open one; a sent draft is a 409). */
export async function removeDraft(
  cmd: { teamId: string; inbox: InboxRecord; draftId: string; source: InboxEventSource },
  ports: DraftPorts,
): Promise<InboxDraftRecord> {
  const current = await findDraft(ports.drafts, cmd.teamId, cmd.inbox.id, cmd.draftId);
  if (current.email_id) throw sentConflict();
  const thread = await threadView(ports, cmd.teamId, cmd.inbox.id, current.thread_id);
  const outcome = await ports.drafts.removeDraft(cmd.teamId, cmd.inbox.id, current, {
    type: 'inbox.draft.deleted',
    data: draftEventData(cmd.source, cmd.inbox.id, current, thread),
  });
  if (outcome === 'missing') throw notFound('Draft');
  if (outcome === 'sent') throw sentConflict();
  return current;
}

/**
 * Replies, forwards and draft sends from an inbox. Each becomes a POST /emails body from the
 * inbox's address and `from_name`, and goes through acceptEmails as any send does (validation,
 * Idempotency-Key, the acceptance stages: sending domain, suppressions, recipient caps; the
 * worker signs with the domain's DKIM key and publishes the email.* events). The accepted
 * email then joins its thread as an `outbound` message (`inbox.email.sent`).
 *
 * Threading headers follow RFC 5322 section 3.6.4: `In-Reply-To` is the parent's Message-ID,
 * `References` the parent's References (or its In-Reply-To when it has none) followed by the
 * parent's Message-ID.
 */
import {
  fieldMessage,
  PetrelError,
  validationError,
  type InboxMessageRecord,
  type InboxRecord,
  type InboxThreadRecord,
} from '@petrel/contracts';
import { acceptEmails, messageIdFor } from '../accept/accept-emails.js';
import type { AcceptPorts, SenderScope } from '../accept/ports.js';
import { escapeHtml } from '../kernel/html.js';
import { bareAddress, mailboxKey } from '../kernel/mailbox.js';
import { formatMailbox } from '../smtp/submission.js';
import { asList } from '../validation/fields.js';
import { base64DecodedLength } from '../validation/attachments.js';
import { sentAttachmentId } from '../share/sent-attachments.js';
import {
  DRAFT_LIMITS,
  DRAFT_RULES,
  type ForwardInput,
  type ReplyInput,
  type SendDraftInput,
  type SendFileInput,
} from './draft-schemas.js';
import { draftSentData, findDraft, replyTarget, type DraftPorts, type InboxDraftRecord } from './drafts.js';
import type { InboxEventSource, InboxesPort, NewInboxMessage } from './ports.js';
import { findThread, labelMap, messageTerms, type InboxIds } from './use-cases.js';
import { ownMessageId, subjectKey } from './threading.js';
import { threadSummary } from './wire.js';
import type { Clock } from '../kernel/clock.js';
import { idKey } from '../kernel/ids.js';

/** A file of a message, as a forward sends it on. */
export interface MessageFile {
  filename: string | null;
  content_type: string | null;
  /** Base64; absent for a file the original sent from a URL (it cannot be forwarded). */
  content?: string;
}

/** Reads what a thread message's record does not hold (bodies stay in the received or sent email). */
export interface MessageContent {
  bodies(teamId: string, m: InboxMessageRecord): Promise<{ html: string | null; text: string | null }>;
  files(teamId: string, m: InboxMessageRecord): Promise<MessageFile[]>;
}

export interface InboxSendPorts {
  inboxes: InboxesPort;
  accept: AcceptPorts;
  content: MessageContent;
  clock: Pick<Clock, 'now'>;
  ids: InboxIds;
}

/** What a send from an inbox answers (the accept path's response, fresh or replayed). */
export interface InboxSendResult {
  status: number;
  body: string;
  replayed: boolean;
  emailId: string;
  threadId: string;
}

interface SendCommon {
  teamId: string;
  inbox: InboxRecord;
  idempotencyKey: string | undefined;
  scope?: SenderScope;
  source: InboxEventSource;
}

// ---------------------------------------------------------------------------------------------
// Pure parts

const REPLY_PREFIX = /^\s*re\s*(?:\[\d+\]|\(\d+\))?\s*[:：]/i;
const FORWARD_PREFIX = /^\s*fwd?\s*(?:\[\d+\]|\(\d+\))?\s*[:：]/i;
const NO_SUBJECT = '(no subject)';

/** `Re: <subject>`, unless it starts with `Re:` already (no `Re: Re:`). */
export function replySubject(subject: string | null): string {
  const s = (subject ?? '').trim();
  if (s === '') return `Re: ${NO_SUBJECT}`;
  return REPLY_PREFIX.test(s) ? s : `Re: ${s}`;
}

/** `Fwd: <subject>`, unless it starts with `Fwd:`/`Fw:` already. */
export function forwardSubject(subject: string | null): string {
  const s = (subject ?? '').trim();
  if (s === '') return `Fwd: ${NO_SUBJECT}`;
  return FORWARD_PREFIX.test(s) ? s : `Fwd: ${s}`;
}

/** References kept on a reply: the root and the nearest ones (RFC 5322 allows trimming; long chains hit line limits). */
const MAX_REFERENCES = 20;

/** In-Reply-To and References of a reply to `parent` (RFC 5322 section 3.6.4). */
export function threadingHeaders(parent: Pick<InboxMessageRecord, 'message_id' | 'references'>): {
  inReplyTo: string | null;
  references: string[];
} {
  if (!parent.message_id) return { inReplyTo: null, references: parent.references.slice(-MAX_REFERENCES) };
  let refs = [...parent.references.filter((r) => r !== parent.message_id), parent.message_id];
  if (refs.length > MAX_REFERENCES) refs = [refs[0]!, ...refs.slice(-(MAX_REFERENCES - 1))];
  return { inReplyTo: parent.message_id, references: refs };
}

/** Recipients of a reply: the parent's Reply-To or sender (its recipients when it was ours); replyAll adds the others. */
export function replyRecipients(
  parent: Pick<InboxMessageRecord, 'direction' | 'from' | 'to' | 'cc' | 'reply_to'>,
  inboxAddress: string,
  replyAll: boolean,
  extraCc: readonly string[],
): { to: string[]; cc: string[] } {
  const self = mailboxKey(inboxAddress);
  const seen = new Set<string>([self]);
  const take = (list: readonly string[]) =>
    list.filter((a) => {
      const k = mailboxKey(bareAddress(a));
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  const primary =
    parent.direction === 'outbound'
      ? parent.to
      : parent.reply_to.length > 0
        ? parent.reply_to
        : [parent.from];
  const to = take(primary);
  if (replyAll && parent.direction === 'inbound') to.push(...take(parent.to));
  const cc = [...(replyAll ? take(parent.cc) : []), ...take(extraCc)];
  return { to, cc };
}

/** An html body's content without its document wrapper (it is nested into a quote). */
function innerHtml(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html);
  return (body ? body[1]! : html).replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '');
}

/** Plain words of an html body, for a text quote of a message that has html only. */
function htmlAsText(html: string): string {
  return innerHtml(html)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|tr|h[1-6])>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;/gi, "'")
    .replace(/&amp;/gi, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface Original {
  head: InboxMessageRecord;
  html: string | null;
  text: string | null;
}

const dateOf = (m: InboxMessageRecord) => new Date(m.received_at).toUTCString();
const originalText = (o: Original) => o.text ?? (o.html ? htmlAsText(o.html) : '');
const originalHtml = (o: Original) =>
  o.html ? innerHtml(o.html) : escapeHtml(o.text ?? '').replace(/\r?\n/g, '<br>\n');

/** The reply's bodies with the original quoted below (text: `> ` lines; html: a blockquote). */
export function quotedReply(
  own: { html?: string | null; text?: string | null },
  o: Original,
): { html?: string; text?: string } {
  const intro = `On ${dateOf(o.head)}, ${o.head.from} wrote:`;
  const out: { html?: string; text?: string } = {};
  if (own.text != null) {
    const quoted = originalText(o)
      .split(/\r?\n/)
      .map((l) => (l === '' ? '>' : `> ${l}`))
      .join('\n');
    out.text = `${own.text}\n\n${intro}\n${quoted}\n`;
  }
  if (own.html != null) {
    out.html =
      `${own.html}\n<div class="petrel_quote"><div>${escapeHtml(intro)}</div>` +
      `<blockquote style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex">` +
      `${originalHtml(o)}</blockquote></div>`;
  }
  return out;
}

/** The forward's bodies: the caller's note, then the original under a "Forwarded message" header block. */
export function forwardedBodies(
  own: { html?: string | null; text?: string | null },
  o: Original,
): { html?: string; text?: string } {
  const h = o.head;
  const lines: [string, string][] = [
    ['From', h.from],
    ['Date', dateOf(h)],
    ['Subject', h.subject ?? ''],
    ['To', h.to.join(', ')],
    ...(h.cc.length > 0 ? [['Cc', h.cc.join(', ')] as [string, string]] : []),
  ];
  const mark = '---------- Forwarded message ---------';
  const out: { html?: string; text?: string } = {};
  const neither = own.html == null && own.text == null;
  if (own.text != null || neither || !o.html) {
    const block = lines.map(([k, v]) => `${k}: ${v}`).join('\n');
    out.text = `${own.text ?? ''}\n\n${mark}\n${block}\n\n${originalText(o)}\n`.replace(/^\n+/, '');
  }
  if (own.html != null || (neither && o.html)) {
    const block = lines.map(([k, v]) => `${k}: ${escapeHtml(v)}<br>`).join('\n');
    out.html =
      `${own.html ?? ''}\n<div class="petrel_forward"><div>${mark}<br>\n${block}</div><br>` +
      `${originalHtml(o)}</div>`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sending

interface OutgoingEmail {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string | null;
  html?: string;
  text?: string;
  attachments: SendFileInput[];
  headers: Record<string, string>;
  parent: InboxMessageRecord | null;
}

/** `"From Name" <inbox address>`, or the bare address when the inbox has no `from_name`. */
export function inboxFrom(inbox: InboxRecord): string {
  return formatMailbox({ name: inbox.from_name ?? '', address: inbox.email_address });
}

/** The POST /emails body of an email from the inbox (what the Idempotency-Key fingerprints). */
function wireBody(inbox: InboxRecord, e: OutgoingEmail): Record<string, unknown> {
  const headers: Record<string, string> = { ...e.headers };
  if (e.parent) {
    const t = threadingHeaders(e.parent);
    if (t.inReplyTo) headers['In-Reply-To'] = `<${t.inReplyTo}>`;
    if (t.references.length > 0) headers['References'] = t.references.map((r) => `<${r}>`).join(' ');
  }
  return {
    from: inboxFrom(inbox),
    to: e.to,
    ...(e.cc.length > 0 && { cc: e.cc }),
    ...(e.bcc.length > 0 && { bcc: e.bcc }),
    subject: e.subject ?? '',
    ...(e.html !== undefined && { html: e.html }),
    ...(e.text !== undefined && { text: e.text }),
    ...(e.attachments.length > 0 && { attachments: e.attachments }),
    ...(Object.keys(headers).length > 0 && { headers }),
  };
}

/**
 * Accepts the email through the send path, then files it into its thread (`threadId`, or a new
 * thread in `sent`) as an outbound message unless it is there already (an idempotent replay
 * after a crash between the two finishes the filing).
 */
async function sendAndFile(
  cmd: SendCommon & { email: OutgoingEmail; threadId: string | null },
  ports: InboxSendPorts,
): Promise<InboxSendResult & { thread: InboxThreadRecord | null; message: InboxMessageRecord | null }> {
  const body = wireBody(cmd.inbox, cmd.email);
  const res = await acceptEmails(
    {
      teamId: cmd.teamId,
      endpoint: 'single',
      body,
      mode: 'strict',
      idempotencyKey: cmd.idempotencyKey,
      clock: ports.clock,
      ...(cmd.scope && { scope: cmd.scope }),
    },
    ports.accept,
  );
  const emailId = (JSON.parse(res.body) as { id?: string }).id;
  if (res.status !== 200 || !emailId) {
    return { ...res, emailId: emailId ?? '', threadId: cmd.threadId ?? '', thread: null, message: null };
  }
  const existing = await ports.inboxes.message(cmd.teamId, cmd.inbox.id, emailId);
  if (existing) {
    return { ...res, emailId, threadId: existing.thread_id, thread: null, message: existing };
  }
  const e = cmd.email;
  const from = String(body.from);
  const refs = e.parent ? threadingHeaders(e.parent) : { inReplyTo: null, references: [] };
  const messageId = ownMessageId(messageIdFor(emailId, cmd.inbox.email_address));
  const m: NewInboxMessage = {
    message: {
      id: emailId,
      direction: 'outbound',
      from,
      to: e.to,
      cc: e.cc,
      bcc: e.bcc,
      reply_to: [],
      subject: e.subject,
      message_id: messageId,
      references: refs.references,
      attachments: e.attachments.map((a, i) => ({
        // the sent email's attachment ids: GET /emails/:id/attachments/:attachmentId serves them
        id: sentAttachmentId(emailId, i),
        filename: a.filename ?? null,
        size: a.content ? base64DecodedLength(a.content) : null,
      })),
      read: true,
      received_at: new Date(ports.clock.now()).toISOString(),
    },
    messageId,
    // a later reply that lost its references finds the thread by subject and our correspondent
    subjectKeys: e.to[0] ? [subjectKey(e.subject, bareAddress(e.to[0]))] : [],
    terms: messageTerms({
      subject: e.subject,
      text: e.text ?? null,
      html: e.html ?? null,
      from: bareAddress(from),
      to: e.to.map(bareAddress),
      cc: e.cc.map(bareAddress),
      bcc: e.bcc.map(bareAddress),
      hasAttachment: e.attachments.length > 0,
    }),
    threadId: cmd.threadId,
    newThreadId: ports.ids.newId(),
    folder: 'sent',
    source: cmd.source,
  };
  const filed = await ports.inboxes.addMessage(cmd.teamId, cmd.inbox, m);
  return {
    ...res,
    emailId,
    threadId: filed.thread.id,
    thread: filed.thread,
    message: { ...m.message, thread_id: filed.thread.id },
  };
}

async function original(
  ports: InboxSendPorts,
  teamId: string,
  inbox: InboxRecord,
  threadId: string,
  emailId: string,
): Promise<{ thread: InboxThreadRecord; o: Original }> {
  const thread = await findThread(ports.inboxes, teamId, inbox.id, threadId);
  const head = await ports.inboxes.message(teamId, inbox.id, idKey(emailId));
  if (!head) throw new PetrelError('not_found', 'Email not found');
  // a message of the inbox that is not in this thread: the path names the wrong pair
  if (head.thread_id !== thread.id)
    throw validationError(fieldMessage(['email_id'], DRAFT_RULES.notInThread(thread.id)));
  return { thread, o: { head, ...(await ports.content.bodies(teamId, head)) } };
}

/** POST …/threads/:t/emails/:e/reply. */
export async function replyToEmail(
  cmd: SendCommon & { threadId: string; emailId: string; input: ReplyInput },
  ports: InboxSendPorts,
): Promise<InboxSendResult> {
  const { input } = cmd;
  const { thread, o } = await original(ports, cmd.teamId, cmd.inbox, cmd.threadId, cmd.emailId);
  const { to, cc } = replyRecipients(
    o.head,
    cmd.inbox.email_address,
    input.reply_all ?? false,
    asList(input.cc),
  );
  return sendAndFile(
    {
      ...cmd,
      threadId: thread.id,
      email: {
        to,
        cc,
        bcc: asList(input.bcc),
        subject: input.subject ?? replySubject(o.head.subject),
        ...quotedReply(input, o),
        attachments: input.attachments ?? [],
        headers: input.headers ?? {},
        parent: o.head,
      },
    },
    ports,
  );
}

/** POST …/threads/:t/emails/:e/forward: the original's files go along (10 files, 25 MB in all). */
export async function forwardEmail(
  cmd: SendCommon & { threadId: string; emailId: string; input: ForwardInput },
  ports: InboxSendPorts,
): Promise<InboxSendResult> {
  const { input } = cmd;
  const { thread, o } = await original(ports, cmd.teamId, cmd.inbox, cmd.threadId, cmd.emailId);
  const files = await ports.content.files(cmd.teamId, o.head);
  if (files.some((f) => f.content === undefined))
    throw validationError(
      fieldMessage(['email_id'], 'has an attachment sent from a URL (path), which cannot be forwarded'),
    );
  const own = input.attachments ?? [];
  if (files.length + own.length > DRAFT_LIMITS.sendFiles)
    throw validationError(fieldMessage(['attachments'], DRAFT_RULES.forwardFiles));
  const carried: SendFileInput[] = files.map((f) => ({
    content: f.content!,
    ...(f.filename && { filename: f.filename }),
    ...(f.content_type && { content_type: f.content_type }),
  }));
  const all = [...carried, ...own];
  const bytes = all.reduce((n, f) => n + (f.content ? Math.max(0, base64DecodedLength(f.content)) : 0), 0);
  if (bytes > DRAFT_LIMITS.sendFilesBytes)
    throw validationError(fieldMessage(['attachments'], DRAFT_RULES.forwardFilesTotal));
  return sendAndFile(
    {
      ...cmd,
      threadId: thread.id,
      email: {
        to: asList(input.to),
        cc: asList(input.cc),
        bcc: asList(input.bcc),
        subject: input.subject ?? forwardSubject(o.head.subject),
        ...forwardedBodies(input, o),
        attachments: all,
        headers: input.headers ?? {},
        parent: o.head,
      },
    },
    ports,
  );
}

/** The email a draft sends: a reply draft answers its message (recipients and subject by default). */
async function draftEmail(
  cmd: SendCommon & { draft: InboxDraftRecord; headers: Record<string, string> },
  ports: InboxSendPorts & DraftPorts,
): Promise<{ email: OutgoingEmail; threadId: string | null }> {
  const d = cmd.draft;
  const content = new Map(
    (await ports.drafts.draftFiles(cmd.teamId, cmd.inbox.id, d.id)).map((f) => [f.id, f.content]),
  );
  const attachments: SendFileInput[] = d.attachments.flatMap((a) => {
    const c = content.get(a.id);
    return c ? [{ content: c, filename: a.filename, content_type: a.content_type }] : [];
  });
  const base = { bcc: d.bcc, attachments, headers: cmd.headers };
  if (d.type === 'reply' && d.thread_id && d.reply_to_email_id) {
    const { thread, message } = await replyTarget(
      ports.inboxes,
      cmd.teamId,
      cmd.inbox.id,
      d.thread_id,
      d.reply_to_email_id,
      { thread: 'thread_id', email: 'reply_to_email_id' },
    );
    const o: Original = { head: message, ...(await ports.content.bodies(cmd.teamId, message)) };
    const defaults = replyRecipients(message, cmd.inbox.email_address, false, d.cc);
    return {
      threadId: thread.id,
      email: {
        ...base,
        to: d.to ?? defaults.to,
        cc: d.to ? d.cc : defaults.cc,
        subject: d.subject ?? replySubject(message.subject),
        ...quotedReply(d, o),
        parent: message,
      },
    };
  }
  if (!d.to || d.to.length === 0) throw validationError(fieldMessage(['to'], DRAFT_RULES.noRecipient));
  return {
    threadId: null,
    email: {
      ...base,
      to: d.to,
      cc: d.cc,
      subject: d.subject,
      ...(d.html != null && { html: d.html }),
      ...(d.text != null && { text: d.text }),
      parent: null,
    },
  };
}

/**
 * POST /inboxes/:x/drafts/:d/send. A sent draft answers 409, or, under the Idempotency-Key of
 * the send that sent it, that send's stored response.
 */
export async function sendDraft(
  cmd: SendCommon & { draftId: string; input: SendDraftInput },
  ports: InboxSendPorts & DraftPorts,
): Promise<InboxSendResult> {
  const d = await findDraft(ports.drafts, cmd.teamId, cmd.inbox.id, cmd.draftId);
  const headers = cmd.input.headers ?? {};
  if (d.email_id) {
    if (cmd.idempotencyKey !== undefined) {
      const { email } = await draftEmail({ ...cmd, draft: { ...d, email_id: null }, headers }, ports);
      const stored = await ports.accept.lookup(
        cmd.teamId,
        cmd.idempotencyKey,
        ports.accept.fingerprint('single', wireBody(cmd.inbox, email)),
      );
      if (stored) return { ...stored, replayed: true, emailId: d.email_id, threadId: d.thread_id ?? '' };
    }
    throw new PetrelError('conflict', fieldMessage(['draft_id'], DRAFT_RULES.sent));
  }
  const { email, threadId } = await draftEmail({ ...cmd, draft: d, headers }, ports);
  const sent = await sendAndFile({ ...cmd, email, threadId }, ports);
  if (sent.status !== 200 || !sent.message) return sent;
  const done: InboxDraftRecord = { ...d, email_id: sent.emailId, thread_id: sent.threadId };
  const thread = await ports.inboxes.thread(cmd.teamId, cmd.inbox.id, sent.threadId);
  const labels = await labelMap(ports.inboxes, cmd.teamId, cmd.inbox.id);
  await ports.drafts.markDraftSent(cmd.teamId, cmd.inbox.id, done, DRAFT_LIMITS.sentDraftTtlMs, {
    type: 'inbox.draft.sent',
    data: draftSentData(
      cmd.source,
      cmd.inbox.id,
      done,
      sent.threadId,
      thread && threadSummary(thread, labels),
      sent.message,
    ),
  });
  return sent;
}

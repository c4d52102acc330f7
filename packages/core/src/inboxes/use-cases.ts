/**
 * Inbox use-cases: inboxes on the team's receiving domains, labels, threads (folders, read,
 * labels, two-step removal), and filing received mail into threads (threading.ts decides
 * where). The bodies have passed the wire schemas (schemas.ts); these add the rules that need
 * stored state, and answer 404 for anything of another team or another inbox.
 */
import {
  PetrelError,
  fieldMessage,
  notFound,
  validationError,
  type InboundEmailRecord,
  type InboxFolder,
  type InboxLabelRecord,
  type InboxMessageRecord,
  type InboxRecord,
  type InboxThreadRecord,
} from '@petrel/contracts';
import type { Clock } from '../kernel/clock.js';
import { mailboxKey, parseAddress, routingDomain } from '../kernel/mailbox.js';
import type { InboxEventSource, InboxesPort, NewInboxMessage, ReceivingDomains } from './ports.js';
import type {
  CreateInboxInput,
  CreateLabelInput,
  UpdateAgentInput,
  UpdateInboxInput,
  UpdateLabelInput,
} from './schemas.js';
import { INBOX_RULES } from './schemas.js';
import { chooseThread, messageIdList, ownMessageId, subjectKey } from './threading.js';
import { idKey } from '../kernel/ids.js';
import { found } from '../kernel/found.js';

export interface InboxIds {
  newId(): string;
}

/** The default colour of a label created without one (the SDK's example colour). */
export const DEFAULT_LABEL_COLOR = '#E93D82';

/** The inbox an `idOrEmail` path segment names, or 404. */
export async function findInbox(
  inboxes: InboxesPort,
  teamId: string,
  idOrEmail: string,
): Promise<InboxRecord> {
  return found(inboxes.find(teamId, idOrEmail), 'Inbox');
}

export async function createInbox(
  cmd: { teamId: string; input: CreateInboxInput },
  ports: { inboxes: InboxesPort; receiving: ReceivingDomains; clock: Pick<Clock, 'now'>; ids: InboxIds },
): Promise<InboxRecord> {
  const { input } = cmd;
  const parsed = parseAddress(input.email_address);
  if (!parsed.ok || parsed.name !== undefined) {
    const reason = parsed.ok ? 'a bare address without a display name' : parsed.reason;
    throw validationError(fieldMessage(['email_address'], `invalid address (${reason})`));
  }
  const address = parsed.address;
  const domain = routingDomain(address.slice(address.lastIndexOf('@') + 1));
  const domains = await ports.receiving.of(cmd.teamId);
  const match = domains.find((d) => d.domain === domain);
  if (!match) {
    throw validationError(
      fieldMessage(['email_address'], INBOX_RULES.notReceiving(domains.map((d) => d.domain))),
    );
  }
  const iso = new Date(ports.clock.now()).toISOString();
  const inbox: InboxRecord = {
    id: ports.ids.newId(),
    email_address: mailboxKey(address),
    name: input.name ?? null,
    from_name: input.from_name ?? null,
    forwarding: input.forwarding ?? false,
    domain_id: match.domainId,
    created_at: iso,
    updated_at: iso,
    agent_instructions: null,
    agent_tone: null,
    agent_actions: [],
  };
  const outcome = await ports.inboxes.create(cmd.teamId, inbox);
  if (outcome === 'taken')
    throw new PetrelError('conflict', fieldMessage(['email_address'], INBOX_RULES.taken));
  return inbox;
}

export async function updateInbox(
  cmd: { teamId: string; idOrEmail: string; input: UpdateInboxInput },
  ports: { inboxes: InboxesPort },
): Promise<InboxRecord> {
  const inbox = await findInbox(ports.inboxes, cmd.teamId, cmd.idOrEmail);
  const updated = await ports.inboxes.update(
    cmd.teamId,
    inbox.id,
    {
      ...(cmd.input.name != null && { name: cmd.input.name }),
      ...(cmd.input.from_name != null && { from_name: cmd.input.from_name }),
    },
    'api',
  );
  if (!updated) throw notFound('Inbox');
  return updated;
}

export async function removeInbox(
  cmd: { teamId: string; idOrEmail: string },
  ports: { inboxes: InboxesPort },
): Promise<InboxRecord> {
  const inbox = await findInbox(ports.inboxes, cmd.teamId, cmd.idOrEmail);
  const removed = await ports.inboxes.remove(cmd.teamId, inbox.id);
  if (!removed) throw notFound('Inbox');
  return removed;
}

/** PATCH …/agent: what is given replaces the stored setting; each action is kept once. */
export async function updateAgentSettings(
  cmd: { teamId: string; inbox: InboxRecord; input: UpdateAgentInput },
  ports: { inboxes: InboxesPort },
): Promise<InboxRecord> {
  const { input } = cmd;
  const updated = await ports.inboxes.update(
    cmd.teamId,
    cmd.inbox.id,
    {
      ...(input.instructions !== undefined && { agent_instructions: input.instructions }),
      ...(input.tone !== undefined && { agent_tone: input.tone }),
      ...(input.actions !== undefined && { agent_actions: [...new Set(input.actions)] }),
    },
    'api',
  );
  if (!updated) throw notFound('Inbox');
  return updated;
}

// ---------------------------------------------------------------------------------------------
// Labels

export async function createLabel(
  cmd: { teamId: string; inbox: InboxRecord; input: CreateLabelInput },
  ports: { inboxes: InboxesPort; clock: Pick<Clock, 'now'>; ids: InboxIds },
): Promise<InboxLabelRecord> {
  const label: InboxLabelRecord = {
    id: ports.ids.newId(),
    name: cmd.input.name.trim(),
    color: (cmd.input.color ?? DEFAULT_LABEL_COLOR).toUpperCase(),
    created_at: new Date(ports.clock.now()).toISOString(),
  };
  await ports.inboxes.createLabel(cmd.teamId, cmd.inbox.id, label);
  return label;
}

export async function updateLabel(
  cmd: { teamId: string; inbox: InboxRecord; labelId: string; input: UpdateLabelInput },
  ports: { inboxes: InboxesPort },
): Promise<InboxLabelRecord> {
  const labels = await ports.inboxes.labels(cmd.teamId, cmd.inbox.id);
  const current = labels.find((l) => l.id === idKey(cmd.labelId));
  if (!current) throw notFound('Label');
  const next: InboxLabelRecord = {
    ...current,
    ...(cmd.input.name != null && { name: cmd.input.name.trim() }),
    ...(cmd.input.color != null && { color: cmd.input.color.toUpperCase() }),
  };
  if (!(await ports.inboxes.updateLabel(cmd.teamId, cmd.inbox.id, next))) throw notFound('Label');
  return next;
}

export async function removeLabel(
  cmd: { teamId: string; inbox: InboxRecord; labelId: string },
  ports: { inboxes: InboxesPort },
): Promise<void> {
  if (!(await ports.inboxes.removeLabel(cmd.teamId, cmd.inbox.id, idKey(cmd.labelId)))) {
    throw notFound('Label');
  }
}

/** The inbox's labels by id. */
export async function labelMap(
  inboxes: InboxesPort,
  teamId: string,
  inboxId: string,
): Promise<Map<string, InboxLabelRecord>> {
  return new Map((await inboxes.labels(teamId, inboxId)).map((l) => [l.id, l]));
}

// ---------------------------------------------------------------------------------------------
// Threads

export async function findThread(
  inboxes: InboxesPort,
  teamId: string,
  inboxId: string,
  threadId: string,
): Promise<InboxThreadRecord> {
  return found(inboxes.thread(teamId, inboxId, idKey(threadId)), 'Thread');
}

/** A message of the thread (its id is its received or sent email's); 404 for any other. */
export async function findThreadMessage(
  inboxes: InboxesPort,
  teamId: string,
  inboxId: string,
  threadId: string,
  messageId: string,
): Promise<InboxMessageRecord> {
  const thread = await findThread(inboxes, teamId, inboxId, threadId);
  const m = await inboxes.message(teamId, inboxId, messageId);
  if (!m || m.thread_id !== thread.id) throw notFound('Email');
  return m;
}

export async function updateThread(
  cmd: {
    teamId: string;
    inbox: InboxRecord;
    threadId: string;
    change: { folder?: InboxFolder; read?: boolean };
    source: InboxEventSource;
  },
  ports: { inboxes: InboxesPort },
): Promise<InboxThreadRecord> {
  const done = await ports.inboxes.updateThread(
    cmd.teamId,
    cmd.inbox.id,
    idKey(cmd.threadId),
    cmd.change,
    cmd.source,
  );
  if (!done) throw notFound('Thread');
  return done.after;
}

/**
 * DELETE …/threads/:t: a thread outside the trash moves there (`deleted: false`, it can still
 * be restored); a thread in the trash is deleted for good (`deleted: true`).
 */
export async function removeThread(
  cmd: { teamId: string; inbox: InboxRecord; threadId: string },
  ports: { inboxes: InboxesPort },
): Promise<{ id: string; deleted: boolean }> {
  const thread = await findThread(ports.inboxes, cmd.teamId, cmd.inbox.id, cmd.threadId);
  if (thread.folder !== 'trash') {
    await updateThread({ ...cmd, threadId: thread.id, change: { folder: 'trash' }, source: 'api' }, ports);
    return { id: thread.id, deleted: false };
  }
  if (!(await ports.inboxes.deleteThread(cmd.teamId, cmd.inbox.id, thread.id))) throw notFound('Thread');
  return { id: thread.id, deleted: true };
}

/** Add, set or remove a thread's labels; every id must be a label of the inbox (422 naming it). */
export async function changeThreadLabels(
  cmd: {
    teamId: string;
    inbox: InboxRecord;
    threadId: string;
    op: 'add' | 'set' | 'remove';
    labelIds: readonly string[];
    source: InboxEventSource;
  },
  ports: { inboxes: InboxesPort },
): Promise<{ thread: InboxThreadRecord; labels: Map<string, InboxLabelRecord> }> {
  const thread = await findThread(ports.inboxes, cmd.teamId, cmd.inbox.id, cmd.threadId);
  const labels = await labelMap(ports.inboxes, cmd.teamId, cmd.inbox.id);
  const ids = cmd.labelIds.map((id) => idKey(id));
  if (cmd.op === 'remove') {
    if (!thread.label_ids.includes(ids[0]!) && !labels.has(ids[0]!)) throw notFound('Label');
  } else {
    ids.forEach((id, i) => {
      if (!labels.has(id))
        throw validationError(fieldMessage(['labels', i], INBOX_RULES.unknownLabel(cmd.labelIds[i]!)));
    });
  }
  const next =
    cmd.op === 'set'
      ? [...new Set(ids)]
      : cmd.op === 'add'
        ? [...new Set([...thread.label_ids, ...ids])]
        : thread.label_ids.filter((id) => id !== ids[0]);
  const updated = await ports.inboxes.setThreadLabels(cmd.teamId, cmd.inbox.id, thread.id, next, cmd.source);
  if (!updated) throw notFound('Thread');
  return { thread: updated, labels };
}

// ---------------------------------------------------------------------------------------------
// Filing messages

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;
/** Words indexed per message: enough for any real message's vocabulary, bounded for a huge one. */
const MAX_TERMS = 2_000;

/** Lower-case search words of a text: letters and digits, 2 to 40 characters, each once. */
export function searchWords(text: string | null | undefined, into = new Set<string>()): Set<string> {
  if (!text) return into;
  for (const m of text.normalize('NFC').toLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/['’_-]+$/, '');
    if (w.length >= 2 && w.length <= 40) into.add(w);
    if (into.size >= MAX_TERMS) break;
  }
  return into;
}

/** The html as plain words (tags, entities and styles dropped: the index needs words, not layout). */
function htmlWords(html: string | null): string | null {
  if (!html) return null;
  return html
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ');
}

/** The search terms of a message (see NewInboxMessage.terms). */
export function messageTerms(m: {
  subject: string | null;
  text: string | null;
  html: string | null;
  from: string;
  to: readonly string[];
  cc: readonly string[];
  bcc: readonly string[];
  hasAttachment: boolean;
}): string[] {
  const words = searchWords(m.subject);
  searchWords(m.text ?? htmlWords(m.html), words);
  const out = [...words].map((w) => `w:${w}`);
  out.push(`from:${mailboxKey(m.from)}`);
  for (const [kind, list] of [
    ['to', m.to],
    ['cc', m.cc],
    ['bcc', m.bcc],
  ] as const) {
    for (const a of new Set(list.map(mailboxKey))) out.push(`${kind}:${a}`);
  }
  if (m.hasAttachment) out.push('att:1');
  return out;
}

/**
 * Files a received email into the inboxes at its recipients' addresses (each inbox once):
 * threads it (threading.ts), and adds it as an inbound message whose id is the received
 * email's, so the message and GET /emails/receiving share one record and one raw copy.
 */
export async function fileReceivedEmail(
  cmd: { teamId: string; email: InboundEmailRecord },
  ports: { inboxes: InboxesPort; ids: InboxIds },
): Promise<{ inboxId: string; threadId: string; created: boolean }[]> {
  const { email } = cmd;
  const mailboxes = [...new Set([...email.received_for, ...email.to, ...email.cc].map(mailboxKey))];
  const inboxes = await ports.inboxes.atAddresses(cmd.teamId, mailboxes);
  if (inboxes.length === 0) return [];
  const h = email.headers;
  const messageId = ownMessageId(email.message_id || h['message-id']);
  const inReplyTo = messageIdList(h['in-reply-to']);
  const references = messageIdList(h['references']);
  const receivedMs = Date.parse(email.created_at);
  const out: { inboxId: string; threadId: string; created: boolean }[] = [];
  for (const inbox of inboxes) {
    const decision = await chooseThread(
      { messageId, inReplyTo, references, subject: email.subject, correspondent: email.from, receivedMs },
      ports.inboxes.lookups(cmd.teamId, inbox.id),
    );
    const m: NewInboxMessage = {
      message: {
        id: email.id,
        direction: 'inbound',
        from: email.from,
        to: email.to,
        cc: email.cc,
        bcc: email.bcc,
        reply_to: email.reply_to,
        subject: email.subject || null,
        message_id: messageId,
        references: [...references.filter((r) => !inReplyTo.includes(r)), ...inReplyTo],
        attachments: email.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size })),
        read: false,
        received_at: email.created_at,
      },
      messageId,
      subjectKeys: email.from ? [subjectKey(email.subject, email.from)] : [],
      terms: messageTerms({ ...email, hasAttachment: email.attachments.length > 0 }),
      threadId: decision.kind === 'existing' ? decision.threadId : null,
      newThreadId: ports.ids.newId(),
      folder: 'inbox',
      source: 'system',
    };
    const filed = await ports.inboxes.addMessage(cmd.teamId, inbox, m);
    out.push({ inboxId: inbox.id, threadId: filed.thread.id, created: filed.created });
  }
  return out;
}

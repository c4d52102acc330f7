/**
 * The inbox objects as the SDK types them (resend 6.38: `Inbox`, `GetInboxResponseSuccess`,
 * `InboxThread`, `InboxThreadSummary`, `InboxMessage`, `InboxLabel`, `InboxAgentSettings`) and
 * the `data` of the `inbox.*` events (`InboxEventData` and its kin: `source` and `inbox_id`
 * always, keys that do not apply left out, emails and drafts without html/text).
 */
import type {
  InboxFolder,
  InboxLabelRecord,
  InboxMessageRecord,
  InboxRecord,
  InboxThreadRecord,
} from '@petrel/contracts';
import type { InboxEventSource } from './ports.js';

export interface InboxCounts {
  unread: number;
  drafts: number;
  lastReceived: string | null;
}

/** A list item of GET /inboxes (`Inbox`). */
export function inboxListItem(i: InboxRecord, c: InboxCounts) {
  return {
    id: i.id,
    name: i.name,
    email_address: i.email_address,
    from_name: i.from_name,
    unread: c.unread,
    last_received: c.lastReceived,
    created_at: i.created_at,
    updated_at: i.updated_at,
  };
}

/** GET /inboxes/:x (`GetInboxResponseSuccess`). */
export function inboxObject(i: InboxRecord, c: InboxCounts) {
  return {
    object: 'inbox' as const,
    id: i.id,
    name: i.name ?? '',
    email_address: i.email_address,
    domain_id: i.domain_id,
    receiving_address: i.email_address,
    from_name: i.from_name,
    unread: c.unread,
    drafts: c.drafts,
    last_received: c.lastReceived,
    created_at: i.created_at,
    updated_at: i.updated_at,
  };
}

export function agentObject(i: InboxRecord) {
  return {
    object: 'inbox_agent' as const,
    instructions: i.agent_instructions,
    tone: i.agent_tone,
    actions: i.agent_actions,
  };
}

export function labelObject(l: InboxLabelRecord) {
  return { id: l.id, name: l.name, color: l.color, created_at: l.created_at };
}

/** A thread's labels (`InboxThreadLabel[]`), in the thread's order; deleted labels are skipped. */
export function threadLabels(t: InboxThreadRecord, labels: ReadonlyMap<string, InboxLabelRecord>) {
  return t.label_ids.flatMap((id) => {
    const l = labels.get(id);
    return l ? [{ id: l.id, name: l.name, color: l.color }] : [];
  });
}

/** A list item of GET …/threads (`InboxThread`). */
export function threadListItem(t: InboxThreadRecord, labels: ReadonlyMap<string, InboxLabelRecord>) {
  return {
    id: t.id,
    subject: t.subject,
    from: t.from,
    to: t.to,
    cc: t.cc,
    bcc: t.bcc,
    labels: threadLabels(t, labels),
    email_count: t.email_count,
    has_attachment: t.has_attachment,
    has_draft: t.drafts > 0,
    read: t.read,
    received_at: t.received_at,
    folder: t.folder,
  };
}

/** GET/PATCH …/threads/:t (`InboxThreadSummary`). */
export function threadSummary(t: InboxThreadRecord, labels: ReadonlyMap<string, InboxLabelRecord>) {
  return {
    object: 'inbox_thread' as const,
    id: t.id,
    subject: t.subject,
    folder: t.folder,
    labels: threadLabels(t, labels),
    read: t.read,
  };
}

/** `InboxMessage` without its bodies (what events carry: `InboxEventEmail`). */
export function messageHead(m: InboxMessageRecord) {
  return {
    id: m.id,
    direction: m.direction,
    from: m.from,
    to: m.to,
    cc: m.cc,
    bcc: m.bcc,
    reply_to: m.reply_to,
    subject: m.subject,
    message_id: m.message_id,
    attachments: m.attachments,
    read: m.read,
    received_at: m.received_at,
  };
}

/** `InboxMessage`: the head and the bodies (read from the received or sent email). */
export function messageObject(m: InboxMessageRecord, bodies: { html: string | null; text: string | null }) {
  return { ...messageHead(m), html: bodies.html, text: bodies.text };
}

/** `data` of an inbox.* event: `source`, `inbox_id`, then what the kind carries. */
export function inboxEventData<E extends object = Record<never, never>>(
  source: InboxEventSource,
  inboxId: string,
  extra: E = {} as E,
): { source: InboxEventSource; inbox_id: string } & E {
  return { source, inbox_id: inboxId, ...extra };
}

// The builders below give each event kind's `data` its SDK shape (resend 6.38
// `InboxEventData`, `InboxThreadEmailEventData`, `InboxThreadFolderUpdatedEventData`, …);
// wire-events.test.ts type-checks each against the SDK's declaration.

export type ThreadSummary = ReturnType<typeof threadSummary>;
export type ThreadLabel = ReturnType<typeof threadLabels>[number];

/** inbox.created / inbox.updated (`InboxEventData`). */
export function inboxChangedData(source: InboxEventSource, i: InboxRecord, c: InboxCounts) {
  return inboxEventData(source, i.id, { inbox: inboxObject(i, c) });
}

/** inbox.deleted (`InboxBaseEventData`). */
export function inboxDeletedData(source: InboxEventSource, inboxId: string) {
  return inboxEventData(source, inboxId);
}

/** inbox.thread.created, inbox.email.received, inbox.email.sent (`InboxThreadEmailEventData`). */
export function threadEmailData(
  source: InboxEventSource,
  inboxId: string,
  thread: ThreadSummary,
  message: InboxMessageRecord,
) {
  return inboxEventData(source, inboxId, {
    thread_id: thread.id,
    thread,
    email_id: message.id,
    email: messageHead(message),
  });
}

/**
 * inbox.thread.folder.updated (`InboxThreadFolderUpdatedEventData`: `from` and `to`). The SDK
 * types both as a `MoveThreadFolder`; a thread Petrel filed in `sent` (outbound only, a folder
 * the SDK's `InboxMessageFolder` lists) reports `from: 'sent'` when it is moved.
 */
export function threadFolderData<F extends InboxFolder, T extends InboxFolder>(
  source: InboxEventSource,
  inboxId: string,
  thread: ThreadSummary,
  from: F,
  to: T,
) {
  return inboxEventData(source, inboxId, { thread_id: thread.id, thread, from, to });
}

/** inbox.thread.labels.updated (`InboxThreadLabelsUpdatedEventData`). */
export function threadLabelsData(
  source: InboxEventSource,
  inboxId: string,
  thread: ThreadSummary,
  added: ThreadLabel[],
  removed: ThreadLabel[],
) {
  return inboxEventData(source, inboxId, { thread_id: thread.id, thread, added, removed });
}

/** inbox.thread.assigned (`InboxThreadAssignedEventData`). */
export function threadAssignedData(
  source: InboxEventSource,
  inboxId: string,
  thread: ThreadSummary,
  assignee: string,
  previous: string | null,
) {
  return inboxEventData(source, inboxId, {
    thread_id: thread.id,
    thread,
    assignee_email: assignee,
    // the SDK's field names a person; an API key, the agent or the system has none
    assigned_by_email: null,
    previous_assignee_email: previous,
  });
}

/** inbox.thread.unassigned (`InboxThreadUnassignedEventData`). */
export function threadUnassignedData(
  source: InboxEventSource,
  inboxId: string,
  thread: ThreadSummary,
  previous: string | null,
) {
  return inboxEventData(source, inboxId, { thread_id: thread.id, thread, previous_assignee_email: previous });
}

/**
 * The inbox objects as the SDK types them (resend 6.38: `Inbox`, `GetInboxResponseSuccess`,
 * `InboxThread`, `InboxThreadSummary`, `InboxMessage`, `InboxLabel`, `InboxAgentSettings`) and
 * the `data` of the `inbox.*` events (`InboxEventData` and its kin: `source` and `inbox_id`
 * always, keys that do not apply left out, emails and drafts without html/text).
 */
import type { InboxLabelRecord, InboxMessageRecord, InboxRecord, InboxThreadRecord } from '@petrel/contracts';
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
export function inboxEventData(
  source: InboxEventSource,
  inboxId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { source, inbox_id: inboxId, ...extra };
}

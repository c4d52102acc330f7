/**
 * Every `inbox.*` event's `data` as Petrel builds it, checked against the official SDK's
 * declaration of that event (resend's `Inbox*Event['data']`): `satisfies` catches a missing or
 * mistyped field, `NoExtraKeys` a field the SDK does not have (at any depth). The root
 * tsconfig type-checks this file (`npx tsc -p tsconfig.json`); vitest pins the values.
 */
import { describe, expect, it } from 'vitest';
import type {
  InboxCreatedEvent,
  InboxDeletedEvent,
  InboxDraftCreatedEvent,
  InboxDraftDeletedEvent,
  InboxDraftSentEvent,
  InboxDraftUpdatedEvent,
  InboxEmailReceivedEvent,
  InboxEmailSentEvent,
  InboxThreadAssignedEvent,
  InboxThreadCreatedEvent,
  InboxThreadFolderUpdatedEvent,
  InboxThreadLabelsUpdatedEvent,
  InboxThreadUnassignedEvent,
  InboxUpdatedEvent,
} from 'resend';
import type { InboxLabelRecord, InboxMessageRecord, InboxRecord, InboxThreadRecord } from '@petrel/contracts';
import { draftEventData, draftSentData, type InboxDraftRecord } from './drafts.js';
import {
  inboxChangedData,
  inboxDeletedData,
  threadAssignedData,
  threadEmailData,
  threadFolderData,
  threadLabelsData,
  threadSummary,
  threadUnassignedData,
} from './wire.js';

/** The keys of T, at any depth, that S does not declare (never when T adds nothing). */
type ExtraKeys<T, S> = T extends readonly (infer TE)[]
  ? S extends readonly (infer SE)[]
    ? ExtraKeys<TE, SE>
    : never
  : T extends object
    ? S extends object
      ? {
          [K in keyof T]-?: K extends keyof S ? ExtraKeys<T[K], Exclude<S[K], null | undefined>> : K;
        }[keyof T]
      : never
    : never;
/** `true` when T has no key S lacks; otherwise the extra keys' names (so assigning `true` fails). */
type NoExtraKeys<T, S> = [ExtraKeys<T, S>] extends [never] ? true : ExtraKeys<T, S>;

const ISO = '2026-05-04T10:00:00.000Z';
const inbox: InboxRecord = {
  id: '0190b7c2-5a3e-7d41-9f2a-000000000001',
  email_address: 'support@in.example',
  name: 'Support',
  from_name: 'Acme Support',
  forwarding: false,
  domain_id: '',
  created_at: ISO,
  updated_at: ISO,
  agent_instructions: null,
  agent_tone: null,
  agent_actions: [],
};
const label: InboxLabelRecord = { id: 'l1', name: 'vip', color: '#112233', created_at: ISO };
const thread: InboxThreadRecord = {
  id: '0190b7c2-5a3e-7d41-9f2a-000000000002',
  subject: 'Order 42',
  from: 'ann@example.com',
  to: ['support@in.example'],
  cc: [],
  bcc: [],
  label_ids: ['l1'],
  email_count: 1,
  has_attachment: true,
  drafts: 0,
  read: false,
  folder: 'inbox',
  received_at: ISO,
  created_at: ISO,
  assignee: null,
};
const message: InboxMessageRecord = {
  id: '0190b7c2-5a3e-7d41-9f2a-000000000003',
  thread_id: thread.id,
  direction: 'inbound',
  from: 'ann@example.com',
  to: ['support@in.example'],
  cc: [],
  bcc: [],
  reply_to: [],
  subject: 'Order 42',
  message_id: '<a@example.com>',
  references: ['<root@example.com>'],
  attachments: [{ id: 'att1', filename: 'invoice.pdf', size: 1234 }],
  read: false,
  received_at: ISO,
};
const draft: InboxDraftRecord = {
  id: '0190b7c2-5a3e-7d41-9f2a-000000000004',
  type: 'reply',
  to: ['ann@example.com'],
  cc: [],
  bcc: [],
  subject: 'Re: Order 42',
  html: null,
  text: 'On its way',
  thread_id: thread.id,
  reply_to_email_id: message.id,
  email_id: null,
  created_at: ISO,
  updated_at: ISO,
  attachments: [{ id: 'f1', filename: 'label.pdf', content_type: 'application/pdf', size: 10 }],
};
const summary = threadSummary(thread, new Map([[label.id, label]]));
const counts = { unread: 1, drafts: 0, lastReceived: ISO };

describe('inbox.* event data has the SDK’s shape', () => {
  it('inbox.created / updated / deleted', () => {
    const changed = inboxChangedData('api', inbox, counts);
    changed satisfies InboxCreatedEvent['data'] & InboxUpdatedEvent['data'];
    const c1: NoExtraKeys<typeof changed, InboxCreatedEvent['data']> = true;
    const deleted = inboxDeletedData('api', inbox.id);
    deleted satisfies InboxDeletedEvent['data'];
    const c2: NoExtraKeys<typeof deleted, InboxDeletedEvent['data']> = true;
    expect([c1, c2]).toEqual([true, true]);
    expect(changed).toMatchObject({
      source: 'api',
      inbox_id: inbox.id,
      inbox: { object: 'inbox', unread: 1 },
    });
    expect(deleted).toEqual({ source: 'api', inbox_id: inbox.id });
  });

  it('inbox.thread.created, inbox.email.received and inbox.email.sent: the email without bodies', () => {
    const data = threadEmailData('system', inbox.id, summary, message);
    data satisfies InboxThreadCreatedEvent['data'];
    data satisfies InboxEmailReceivedEvent['data'];
    data satisfies InboxEmailSentEvent['data'];
    const c: NoExtraKeys<typeof data, InboxEmailReceivedEvent['data']> = true;
    expect(c).toBe(true);
    expect(data).toMatchObject({
      thread_id: thread.id,
      thread: { object: 'inbox_thread', labels: [{ id: 'l1', name: 'vip', color: '#112233' }] },
      email_id: message.id,
      email: { attachments: [{ id: 'att1', filename: 'invoice.pdf', size: 1234 }] },
    });
    expect(data.email).not.toHaveProperty('html');
    expect(data.email).not.toHaveProperty('text');
    expect(data.email).not.toHaveProperty('references');
  });

  it('inbox.thread.folder.updated names the folders `from` and `to`', () => {
    const data = threadFolderData('api', inbox.id, summary, 'inbox', 'archive');
    data satisfies InboxThreadFolderUpdatedEvent['data'];
    const c: NoExtraKeys<typeof data, InboxThreadFolderUpdatedEvent['data']> = true;
    expect(c).toBe(true);
    expect(data).toEqual({
      source: 'api',
      inbox_id: inbox.id,
      thread_id: thread.id,
      thread: summary,
      from: 'inbox',
      to: 'archive',
    });
  });

  it('inbox.thread.labels.updated, assigned and unassigned', () => {
    const labels = threadLabelsData('agent', inbox.id, summary, summary.labels, []);
    labels satisfies InboxThreadLabelsUpdatedEvent['data'];
    const c1: NoExtraKeys<typeof labels, InboxThreadLabelsUpdatedEvent['data']> = true;
    const assigned = threadAssignedData('agent', inbox.id, summary, 'bob@example.com', null);
    assigned satisfies InboxThreadAssignedEvent['data'];
    const c2: NoExtraKeys<typeof assigned, InboxThreadAssignedEvent['data']> = true;
    const unassigned = threadUnassignedData('api', inbox.id, summary, 'bob@example.com');
    unassigned satisfies InboxThreadUnassignedEvent['data'];
    const c3: NoExtraKeys<typeof unassigned, InboxThreadUnassignedEvent['data']> = true;
    expect([c1, c2, c3]).toEqual([true, true, true]);
    expect(labels).toMatchObject({ added: [{ id: 'l1' }], removed: [] });
    expect(assigned).toMatchObject({
      assignee_email: 'bob@example.com',
      assigned_by_email: null,
      previous_assignee_email: null,
    });
    expect(unassigned).toMatchObject({ previous_assignee_email: 'bob@example.com' });
  });

  it('inbox.draft.created / updated / deleted / sent: the draft without bodies', () => {
    const data = draftEventData('api', inbox.id, draft, { record: thread, summary });
    data satisfies InboxDraftCreatedEvent['data'];
    data satisfies InboxDraftUpdatedEvent['data'];
    data satisfies InboxDraftDeletedEvent['data'];
    const c1: NoExtraKeys<typeof data, InboxDraftCreatedEvent['data']> = true;
    const standalone = draftEventData(
      'api',
      inbox.id,
      { ...draft, type: 'standalone', thread_id: null },
      null,
    );
    standalone satisfies InboxDraftCreatedEvent['data'];
    const sent = draftSentData('api', inbox.id, { ...draft, email_id: message.id }, thread.id, summary, {
      ...message,
      direction: 'outbound',
    });
    sent satisfies InboxDraftSentEvent['data'];
    const c2: NoExtraKeys<typeof sent, InboxDraftSentEvent['data']> = true;
    expect([c1, c2]).toEqual([true, true]);
    expect(data).toMatchObject({
      thread_id: thread.id,
      draft_id: draft.id,
      draft: { object: 'inbox_draft' },
    });
    expect(data.draft).not.toHaveProperty('text');
    expect(standalone).not.toHaveProperty('thread_id');
    expect(standalone).not.toHaveProperty('thread');
    expect(sent).toMatchObject({ email_id: message.id, draft: { email_id: message.id } });
  });
});

/**
 * Inboxes (the SDK's `resend.inboxes.*`): threaded mailboxes on top of received mail. The
 * constants are the SDK's (`INBOX_MESSAGE_FOLDERS`, `MOVE_THREAD_FOLDERS`, `INBOX_AGENT_ACTIONS`,
 * `INBOX_AGENT_TONES` in resend 6.38); the records are what the store keeps, in wire names.
 */

export const INBOX_MESSAGE_FOLDERS = ['inbox', 'archive', 'spam', 'sent', 'trash'] as const;
export type InboxFolder = (typeof INBOX_MESSAGE_FOLDERS)[number];

/** Folders a client may move a thread to (`sent` is where Petrel files outbound-only threads). */
export const MOVE_THREAD_FOLDERS = ['inbox', 'archive', 'spam', 'trash'] as const;
export type MoveThreadFolder = (typeof MOVE_THREAD_FOLDERS)[number];

export const INBOX_AGENT_ACTIONS = [
  'draft_reply',
  'forward_thread',
  'add_labels',
  'assign_thread',
  'mark_as_spam',
  'archive',
  'move_to_trash',
] as const;
export type InboxAgentAction = (typeof INBOX_AGENT_ACTIONS)[number];

export const INBOX_AGENT_TONES = [
  'concise_professional',
  'concise_casual',
  'expanded_professional',
  'expanded_casual',
] as const;
export type InboxAgentTone = (typeof INBOX_AGENT_TONES)[number];

/** Petrel's bounds on inbox input (Resend documents only the thread-label one). */
export const INBOX_LIMITS = {
  nameChars: 256,
  labelNameChars: 64,
  /** AddInboxThreadLabelsOptions: "Between 1 and 10 label IDs". */
  labelsPerRequest: 10,
  labelsPerThread: 50,
  labelsPerInbox: 500,
  instructionsChars: 10_000,
  searchQueryChars: 512,
  /** Address filters of a search, per kind. */
  searchAddresses: 20,
} as const;

/** An inbox as stored (the agent settings live in the same record). */
export interface InboxRecord {
  id: string;
  email_address: string;
  name: string | null;
  from_name: string | null;
  forwarding: boolean;
  /** The team's domain the address is at, or '' for an operator's receiving domain (INBOUND_DOMAINS). */
  domain_id: string;
  created_at: string;
  updated_at: string;
  agent_instructions: string | null;
  agent_tone: InboxAgentTone | null;
  agent_actions: InboxAgentAction[];
}

export interface InboxLabelRecord {
  id: string;
  name: string;
  /** `#RRGGBB`. */
  color: string;
  created_at: string;
}

export interface InboxThreadRecord {
  id: string;
  subject: string | null;
  /** The first message's sender. */
  from: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  label_ids: string[];
  email_count: number;
  has_attachment: boolean;
  drafts: number;
  read: boolean;
  folder: InboxFolder;
  /** The newest message's time (the listing's order). */
  received_at: string;
  created_at: string;
  /** Who the thread is assigned to (an address), or null (`inbox.thread.assigned` / `unassigned`). */
  assignee: string | null;
}

/**
 * One change recorded on a thread's activity (newest last): what was done, by whom (`agent`,
 * `api`…), for which message, and what it named (labels, an assignee, a draft or forward id).
 */
export interface InboxThreadActivity {
  at: string;
  source: 'api' | 'dashboard' | 'agent' | 'system';
  action: string;
  email_id: string | null;
  detail: Record<string, unknown>;
}

export interface InboxMessageAttachment {
  id: string;
  filename: string | null;
  size: number | null;
}

/**
 * One message of a thread. Its id is the received email's id (inbound) or the sent email's id
 * (outbound): the bodies are read from that record, so a message is stored once.
 */
export interface InboxMessageRecord {
  id: string;
  thread_id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string | null;
  message_id: string | null;
  /** The message's own References chain (RFC 5322 section 3.6.4), for replies to it. */
  references: string[];
  attachments: InboxMessageAttachment[];
  read: boolean;
  received_at: string;
}

/**
 * The port of the inbox use-cases. packages/store's InboxesStore implements it; every write
 * publishes its `inbox.*` event on the team's events stream in the same step.
 */
import type {
  InboxAgentAction,
  InboxAgentTone,
  InboxFolder,
  InboxLabelRecord,
  InboxMessageRecord,
  InboxRecord,
  InboxThreadActivity,
  InboxThreadRecord,
} from '@petrel/contracts';
import type { Page, PageRequest } from '../kernel/page.js';
import type { ThreadLookups } from './threading.js';

/** Who made a change, as the `inbox.*` events say (`InboxEventSource`). */
export type InboxEventSource = 'api' | 'dashboard' | 'agent' | 'system';

export interface InboxPatch {
  name?: string | null;
  from_name?: string | null;
  agent_instructions?: string | null;
  agent_tone?: InboxAgentTone | null;
  agent_actions?: InboxAgentAction[];
}

/** Changes to a thread in one write (absent: unchanged); `assignee: null` unassigns it. */
export interface ThreadChange {
  folder?: InboxFolder;
  read?: boolean;
  label_ids?: readonly string[];
  assignee?: string | null;
}

export interface ThreadQuery extends PageRequest {
  /** Absent: every folder. */
  folders?: readonly InboxFolder[];
  /** Threads carrying all of these labels. */
  labels?: readonly string[];
  read?: boolean;
}

export interface ThreadSearch extends ThreadQuery {
  /** Lower-case words that must all be in one message's subject or body. */
  words: readonly string[];
  from: readonly string[];
  to: readonly string[];
  cc: readonly string[];
  bcc: readonly string[];
  hasAttachment?: boolean;
  startMs?: number;
  endMs?: number;
}

/** A new message for a thread, with what the store indexes it by. */
export interface NewInboxMessage {
  message: Omit<InboxMessageRecord, 'thread_id'>;
  /** Its own Message-ID (bare), to point at the thread; null when it has none. */
  messageId: string | null;
  /** Subject keys (threading.ts) under which later prefix-only replies find the thread. */
  subjectKeys: readonly string[];
  /** Search terms: words of subject and body, `from:`/`to:`/`cc:`/`bcc:` mailboxes, `att:1`. */
  terms: readonly string[];
  /** An existing thread, or null for a new one (whose id is `newThreadId`). */
  threadId: string | null;
  newThreadId: string;
  /** The folder of a new thread: `inbox` for inbound mail, `sent` for outbound. */
  folder: InboxFolder;
  source: InboxEventSource;
}

export interface InboxesPort {
  create(teamId: string, inbox: InboxRecord): Promise<'created' | 'taken'>;
  /** By id or by address (any case); null when the team has no such inbox. */
  find(teamId: string, idOrEmail: string): Promise<InboxRecord | null>;
  /** The team's inboxes at these mailboxes (lower case), those that exist. */
  atAddresses(teamId: string, mailboxes: readonly string[]): Promise<InboxRecord[]>;
  list(teamId: string, page: PageRequest): Promise<Page<InboxRecord> | null>;
  update(
    teamId: string,
    inboxId: string,
    patch: InboxPatch,
    source: InboxEventSource,
  ): Promise<InboxRecord | null>;
  remove(teamId: string, inboxId: string): Promise<InboxRecord | null>;
  /** Unread threads and drafts of an inbox. */
  counts(
    teamId: string,
    inboxId: string,
  ): Promise<{ unread: number; drafts: number; lastReceived: string | null }>;

  labels(teamId: string, inboxId: string): Promise<InboxLabelRecord[]>;
  createLabel(teamId: string, inboxId: string, label: InboxLabelRecord): Promise<void>;
  updateLabel(teamId: string, inboxId: string, label: InboxLabelRecord): Promise<boolean>;
  removeLabel(teamId: string, inboxId: string, labelId: string): Promise<boolean>;

  thread(teamId: string, inboxId: string, threadId: string): Promise<InboxThreadRecord | null>;
  threads(teamId: string, inboxId: string, query: ThreadQuery): Promise<Page<InboxThreadRecord> | null>;
  search(
    teamId: string,
    inboxId: string,
    query: ThreadSearch,
  ): Promise<Page<InboxThreadRecord & { matched_email_id: string | null }> | null>;
  /** Moves and/or marks a thread; null when it does not exist. */
  updateThread(
    teamId: string,
    inboxId: string,
    threadId: string,
    change: { folder?: InboxFolder; read?: boolean },
    source: InboxEventSource,
  ): Promise<{ before: InboxThreadRecord; after: InboxThreadRecord } | null>;
  /**
   * Several changes of a thread in one write, with their events (folder, labels, assigned /
   * unassigned) and `activity` appended to the thread's activity list; null when it does not exist.
   */
  changeThread(
    teamId: string,
    inboxId: string,
    threadId: string,
    change: ThreadChange,
    source: InboxEventSource,
    activity?: readonly InboxThreadActivity[],
  ): Promise<{ before: InboxThreadRecord; after: InboxThreadRecord } | null>;
  /** The thread's activity, oldest first ([] for an unknown thread). */
  activity(teamId: string, inboxId: string, threadId: string): Promise<InboxThreadActivity[]>;
  /** Deletes a thread and its messages for good. */
  deleteThread(teamId: string, inboxId: string, threadId: string): Promise<boolean>;
  setThreadLabels(
    teamId: string,
    inboxId: string,
    threadId: string,
    labelIds: readonly string[],
    source: InboxEventSource,
  ): Promise<InboxThreadRecord | null>;

  messages(
    teamId: string,
    inboxId: string,
    threadId: string,
    page: PageRequest,
  ): Promise<Page<InboxMessageRecord> | null>;
  message(teamId: string, inboxId: string, messageId: string): Promise<InboxMessageRecord | null>;

  lookups(teamId: string, inboxId: string): ThreadLookups;
  /** Files a message into its thread (new or existing); the thread as it is after. */
  addMessage(
    teamId: string,
    inbox: InboxRecord,
    m: NewInboxMessage,
  ): Promise<{ thread: InboxThreadRecord; created: boolean }>;
}

/** The team's receiving domains (lower case, A-labels) and the domain id of each ('' for an operator's). */
export interface ReceivingDomains {
  of(teamId: string): Promise<{ domain: string; domainId: string }[]>;
}

/**
 * The inbox agent: on each new inbound message of an inbox whose agent has actions, ask the
 * operator's model (a port) what to do with the thread and apply what the inbox allows.
 *
 * - It runs only where an operator configured a model endpoint; the inbound side queues a run
 *   (`queueAgentRuns`) only then, and only for an inbox with actions.
 * - The answer is untrusted (agent-answer.ts): schema-checked, then held to the inbox's rules,
 *   all or nothing.
 * - The agent never sends mail by itself: `draft_reply` saves a draft for a person;
 *   `forward_thread` goes only to an address the operator's instructions name.
 * - Each applied action is one entry of the thread's activity (`source: agent`, the message's
 *   id), written with the thread's changes and their `inbox.*` events in one step. A run whose
 *   message has an entry already does nothing (a job run twice after a crash). Drafts and
 *   forwards happen before that write, under ids derived from the message, so a repeated run
 *   finds them instead of making new ones.
 */
import {
  PetrelError,
  type InboxAgentAction,
  type InboxMessageRecord,
  type InboxThreadActivity,
} from '@petrel/contracts';
import type { InboxesPort } from './ports.js';
import { deterministicEmailId } from '../kernel/ids.js';
import { createDraft, type DraftPorts } from './drafts.js';
import { forwardEmail, type InboxSendPorts, type InboxSendResult } from './replies.js';
import { AGENT_PROMPT_LIMITS, agentPrompt, type ChatMessage } from './agent-prompt.js';
import { decideAgentActions, parseAgentAnswer, type AgentRefusalReason } from './agent-answer.js';

/** The operator's model: the text of its first choice for these messages. */
export interface ChatModel {
  complete(messages: readonly ChatMessage[]): Promise<string>;
}

/**
 * The model could not answer. `retryable`: worth asking again later (a timeout, 429, 5xx, the
 * network); otherwise (401, 404, a reply without a choice) retrying cannot help.
 */
export class AgentModelError extends Error {
  override name = 'AgentModelError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * A mail action the use-case refused (a 4xx of the accept path or of the forward's own rules):
 * the run changes nothing. `retryable`: a later attempt may pass (409: another run holds the
 * action's Idempotency-Key; 429: a rate limit; 5xx); otherwise asking the model again cannot help.
 */
export class AgentActionRefused extends Error {
  override name = 'AgentActionRefused';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const refused = (action: InboxAgentAction, status: number, why: string) =>
  new AgentActionRefused(
    `${action} refused (${status}): ${why}`,
    status === 409 || status === 429 || status >= 500,
  );

/** The plain text of a thread's message (its text part, else its html as text); null if unknown. */
export interface MessageTexts {
  of(teamId: string, message: InboxMessageRecord): Promise<string | null>;
}

/**
 * What the agent may do beyond the thread itself, each with the inbox's own use-case. Absent:
 * the deployment cannot, and an answer proposing it is refused. `key` is stable per message and
 * action, for the use-case's idempotency.
 */
export interface AgentMail {
  draftReply?(cmd: {
    teamId: string;
    inboxId: string;
    threadId: string;
    emailId: string;
    text: string;
    key: string;
  }): Promise<{ draftId: string }>;
  forward?(cmd: {
    teamId: string;
    inboxId: string;
    threadId: string;
    emailId: string;
    to: readonly string[];
    note: string | null;
    key: string;
  }): Promise<{ emailId: string }>;
}

export interface InboxAgentPorts {
  inboxes: InboxesPort;
  texts: MessageTexts;
  model: ChatModel;
  mail: AgentMail;
  clock: { now(): number };
}

export type AgentRunResult =
  | { outcome: 'skipped'; why: 'no_inbox' | 'no_thread' | 'no_actions' | 'already_run' }
  | { outcome: 'no_action' }
  | { outcome: 'applied'; actions: InboxAgentAction[] }
  | { outcome: AgentRefusalReason; detail: string };

/** Every outcome of an answer (the answers metric's `outcome` label), `model_error` included. */
export const AGENT_ANSWER_OUTCOMES = [
  'applied',
  'no_action',
  'malformed',
  'unknown_action',
  'not_allowed',
  'invalid_action',
  'model_error',
] as const;

/** The always-available actions: they change only the thread. */
const THREAD_ACTIONS: readonly InboxAgentAction[] = [
  'add_labels',
  'assign_thread',
  'mark_as_spam',
  'archive',
  'move_to_trash',
];

export async function runInboxAgent(
  cmd: { teamId: string; inboxId: string; threadId: string; emailId: string },
  ports: InboxAgentPorts,
): Promise<AgentRunResult> {
  const { teamId } = cmd;
  const inbox = await ports.inboxes.find(teamId, cmd.inboxId);
  if (!inbox) return { outcome: 'skipped', why: 'no_inbox' };
  // the settings as they are now: actions removed since the message was queued are not run
  if (inbox.agent_actions.length === 0) return { outcome: 'skipped', why: 'no_actions' };
  const thread = await ports.inboxes.thread(teamId, inbox.id, cmd.threadId);
  if (!thread) return { outcome: 'skipped', why: 'no_thread' };
  const activity = await ports.inboxes.activity(teamId, inbox.id, thread.id);
  if (activity.some((a) => a.source === 'agent' && a.email_id === cmd.emailId))
    return { outcome: 'skipped', why: 'already_run' };

  const labels = await ports.inboxes.labels(teamId, inbox.id);
  // the newest messages (a page lists oldest first): what the prompt keeps of a long thread
  let heads: InboxMessageRecord[] = [];
  for (let after: string | undefined; ;) {
    const page = await ports.inboxes.messages(teamId, inbox.id, thread.id, {
      limit: 100,
      ...(after && { after }),
    });
    if (!page) break;
    heads = [...heads, ...page.items].slice(-AGENT_PROMPT_LIMITS.messages);
    if (!page.hasMore || page.items.length === 0) break;
    after = page.items[page.items.length - 1]!.id;
  }
  const messages = await Promise.all(
    heads.map(async (message) => ({ message, text: await ports.texts.of(teamId, message) })),
  );
  const content = await ports.model.complete(
    agentPrompt({ inbox, thread, labels, messages, emailId: cmd.emailId }),
  );

  const parsed = parseAgentAnswer(content);
  if (!parsed.ok) return { outcome: parsed.reason, detail: parsed.detail };
  if (parsed.actions.length === 0) return { outcome: 'no_action' };
  const available = new Set<InboxAgentAction>(THREAD_ACTIONS);
  if (ports.mail.draftReply) available.add('draft_reply');
  if (ports.mail.forward) available.add('forward_thread');
  const decided = decideAgentActions(
    parsed.actions,
    { allowed: inbox.agent_actions, instructions: inbox.agent_instructions, labels },
    available,
  );
  if (!decided.ok) return { outcome: decided.reason, detail: decided.detail };
  const { plan } = decided;

  const at = () => new Date(ports.clock.now()).toISOString();
  const entry = (action: InboxAgentAction, detail: Record<string, unknown> = {}): InboxThreadActivity => ({
    at: at(),
    source: 'agent',
    action,
    email_id: cmd.emailId,
    detail,
  });
  const base = { teamId, inboxId: inbox.id, threadId: thread.id, emailId: cmd.emailId };
  const entries: InboxThreadActivity[] = [];
  if (plan.draft && ports.mail.draftReply) {
    const { draftId } = await ports.mail.draftReply({
      ...base,
      text: plan.draft.text,
      key: `agent-draft-${cmd.emailId}`,
    });
    entries.push(entry('draft_reply', { draft_id: draftId }));
  }
  if (plan.forward && ports.mail.forward) {
    const sent = await ports.mail.forward({
      ...base,
      to: plan.forward.to,
      note: plan.forward.note,
      key: `agent-forward-${cmd.emailId}`,
    });
    entries.push(entry('forward_thread', { to: plan.forward.to, email_id: sent.emailId }));
  }
  for (const a of plan.actions) {
    if (a.type === 'add_labels') entries.push(entry('add_labels', { label_ids: plan.labelIds }));
    else if (a.type === 'assign_thread')
      entries.push(entry('assign_thread', { assignee: plan.assignee ?? null }));
    else if (a.type === 'archive' || a.type === 'mark_as_spam' || a.type === 'move_to_trash')
      entries.push(entry(a.type, { folder: plan.folder }));
  }
  const changed = await ports.inboxes.changeThread(
    teamId,
    inbox.id,
    thread.id,
    {
      ...(plan.folder !== null && { folder: plan.folder }),
      ...(plan.labelIds.length > 0 && { label_ids: [...new Set([...thread.label_ids, ...plan.labelIds])] }),
      ...(plan.assignee !== undefined && { assignee: plan.assignee }),
    },
    'agent',
    entries,
  );
  if (!changed) return { outcome: 'skipped', why: 'no_thread' };
  return { outcome: 'applied', actions: plan.actions.map((a) => a.type) };
}

/** The agent's draft id for a message: derived, so a repeated run finds the draft it made. */
const AGENT_DRAFT = 'inbox agent draft_reply';

/**
 * The agent's mail actions over the inbox use-cases: `draft_reply` is createDraft (a reply draft
 * to the message, `source: agent`, its id derived from the message — never a send);
 * `forward_thread` is forwardEmail (the message with its files, the model's note above it,
 * through the accept path POST /emails uses, under an Idempotency-Key derived from the message,
 * so a repeated run replays the first forward instead of sending another). Each is absent
 * without its ports.
 */
export function inboxAgentMail(ports: { drafts?: DraftPorts; send?: InboxSendPorts }): AgentMail {
  const { drafts, send } = ports;
  const mail: AgentMail = {};
  if (drafts) {
    mail.draftReply = async (cmd) => {
      const inbox = await drafts.inboxes.find(cmd.teamId, cmd.inboxId);
      const message = inbox && (await drafts.inboxes.message(cmd.teamId, inbox.id, cmd.emailId));
      if (!inbox || !message) throw new Error(`inbox ${cmd.inboxId}: message ${cmd.emailId} is gone`);
      const draft = await createDraft(
        {
          teamId: cmd.teamId,
          inbox,
          input: { thread_id: cmd.threadId, reply_to_email_id: cmd.emailId, text: cmd.text },
          source: 'agent',
          draftId: deterministicEmailId(cmd.teamId, cmd.key, AGENT_DRAFT, 0, Date.parse(message.received_at)),
        },
        drafts,
      );
      return { draftId: draft.id };
    };
  }
  if (send) {
    mail.forward = async (cmd) => {
      const inbox = await send.inboxes.find(cmd.teamId, cmd.inboxId);
      if (!inbox) throw new Error(`inbox ${cmd.inboxId} is gone`);
      let sent: InboxSendResult;
      try {
        sent = await forwardEmail(
          {
            teamId: cmd.teamId,
            inbox,
            idempotencyKey: cmd.key,
            source: 'agent',
            threadId: cmd.threadId,
            emailId: cmd.emailId,
            input: { to: [...cmd.to], ...(cmd.note !== null && { text: cmd.note }) },
          },
          send,
        );
      } catch (err) {
        // the forward's own rules (the original's files, the message gone)
        if (err instanceof PetrelError) throw refused('forward_thread', err.statusCode, err.message);
        throw err;
      }
      // refused by a stage of the accept path (an unverified sending domain, the quota)
      if (sent.status !== 200) throw refused('forward_thread', sent.status, sent.body);
      return { emailId: sent.emailId };
    };
  }
  return mail;
}

/** Where the inbound side queues agent runs (packages/queue's InboxAgentQueue). */
export interface AgentRunQueue {
  enqueue(job: { teamId: string; inboxId: string; threadId: string; emailId: string }): Promise<void>;
}

/**
 * After a received email was filed: one agent run per inbox it landed in whose agent has
 * actions. Called only where a model endpoint is configured (the inbound server is given the
 * queue then), so without one nothing is queued and nothing runs.
 */
export async function queueAgentRuns(
  cmd: { teamId: string; emailId: string; filed: readonly { inboxId: string; threadId: string }[] },
  ports: { inboxes: Pick<InboxesPort, 'find'>; queue: AgentRunQueue },
): Promise<number> {
  let queued = 0;
  for (const f of cmd.filed) {
    const inbox = await ports.inboxes.find(cmd.teamId, f.inboxId);
    if (!inbox || inbox.agent_actions.length === 0) continue;
    await ports.queue.enqueue({
      teamId: cmd.teamId,
      inboxId: f.inboxId,
      threadId: f.threadId,
      emailId: cmd.emailId,
    });
    queued++;
  }
  return queued;
}

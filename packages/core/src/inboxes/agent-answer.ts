/**
 * The inbox agent's answer and what may come of it. The model's reply is untrusted input — it
 * has read mail written by strangers, who may have written instructions for it (prompt
 * injection, OWASP LLM01) — so it is checked twice before anything changes:
 *
 * 1. its shape (`parseAgentAnswer`): a JSON object `{ "actions": [...] }` whose every action is
 *    one of INBOX_AGENT_ACTIONS with that action's fields; anything else is `malformed`, an
 *    action type outside the list `unknown_action`;
 * 2. the inbox's rules (`decideAgentActions`, the decision table): every action must be one the
 *    inbox allows (`not_allowed`), and name only what exists or what the operator named
 *    (`invalid_action`): labels of this inbox, a forward only to an address the instructions
 *    spell out, a well-formed assignee, at most one folder move.
 *
 * All or nothing: an answer with one refused action changes nothing at all. A model that
 * proposes something forbidden may have been steered by the message it read, so none of that
 * answer is trusted (the refusal is logged and counted by the caller).
 */
import { INBOX_AGENT_ACTIONS, type InboxAgentAction, type InboxLabelRecord } from '@petrel/contracts';
import { z } from 'zod';
import { mailboxKey, parseAddress } from '../kernel/mailbox.js';

/** Bounds of an answer: more than any sensible triage of one message needs. */
export const AGENT_ANSWER_LIMITS = {
  actions: 10,
  labels: 10,
  forwardTo: 5,
  textChars: 20_000,
} as const;

const address = z.string().min(3).max(320);

/** The fields of each action the model may propose (the `type` picks the schema). */
export const AGENT_ACTION_SCHEMAS = {
  draft_reply: z.object({
    type: z.literal('draft_reply'),
    text: z.string().min(1).max(AGENT_ANSWER_LIMITS.textChars),
  }),
  forward_thread: z.object({
    type: z.literal('forward_thread'),
    to: z.array(address).min(1).max(AGENT_ANSWER_LIMITS.forwardTo),
    note: z.string().max(AGENT_ANSWER_LIMITS.textChars).optional(),
  }),
  add_labels: z.object({
    type: z.literal('add_labels'),
    labels: z.array(z.string().min(1).max(100)).min(1).max(AGENT_ANSWER_LIMITS.labels),
  }),
  assign_thread: z.object({ type: z.literal('assign_thread'), assignee: address.nullable() }),
  mark_as_spam: z.object({ type: z.literal('mark_as_spam') }),
  archive: z.object({ type: z.literal('archive') }),
  move_to_trash: z.object({ type: z.literal('move_to_trash') }),
} as const satisfies Record<InboxAgentAction, z.ZodType>;

export type AgentAction = z.infer<(typeof AGENT_ACTION_SCHEMAS)[InboxAgentAction]>;

const answerShape = z.object({
  actions: z.array(z.object({ type: z.string() }).loose()).max(AGENT_ANSWER_LIMITS.actions),
});

/** Why an answer changed nothing (each is a value of the answers metric's `outcome`). */
export type AgentRefusalReason = 'malformed' | 'unknown_action' | 'not_allowed' | 'invalid_action';

export type AgentRefusal = { ok: false; reason: AgentRefusalReason; detail: string };

/** The model's reply text checked against the answer's shape. */
export function parseAgentAnswer(content: string): { ok: true; actions: AgentAction[] } | AgentRefusal {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return { ok: false, reason: 'malformed', detail: 'the answer is not JSON' };
  }
  const outer = answerShape.safeParse(json);
  if (!outer.success) {
    return {
      ok: false,
      reason: 'malformed',
      detail: `the answer must be {"actions": [...]} with at most ${AGENT_ANSWER_LIMITS.actions} actions`,
    };
  }
  const actions: AgentAction[] = [];
  for (const [i, raw] of outer.data.actions.entries()) {
    if (!(INBOX_AGENT_ACTIONS as readonly string[]).includes(raw.type)) {
      return {
        ok: false,
        reason: 'unknown_action',
        detail: `actions[${i}]: unknown action ${JSON.stringify(raw.type)}`,
      };
    }
    const parsed = AGENT_ACTION_SCHEMAS[raw.type as InboxAgentAction].safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') ?? '';
      return {
        ok: false,
        reason: 'malformed',
        detail: `actions[${i}] (${raw.type}): ${field} ${issue?.message ?? ''}`.trim(),
      };
    }
    actions.push(parsed.data);
  }
  return { ok: true, actions };
}

/** What the checked answer does, ready for the use-case to apply. */
export interface AgentPlan {
  folder: 'archive' | 'spam' | 'trash' | null;
  /** Label ids to add (existing labels of the inbox). */
  labelIds: string[];
  /** undefined: unchanged; null: unassign. */
  assignee: string | null | undefined;
  forward: { to: string[]; note: string | null } | null;
  draft: { text: string } | null;
  /** The actions as applied, in answer order (each becomes an activity entry). */
  actions: AgentAction[];
}

const FOLDER_OF = { archive: 'archive', mark_as_spam: 'spam', move_to_trash: 'trash' } as const;

/**
 * Addresses an operator's instructions spell out: the tokens of the form local@domain, lower
 * case. A forward may go only to one of these (literally named, not inferred: "forward invoices
 * to accounting" names nobody).
 */
export function namedAddresses(instructions: string | null): Set<string> {
  const out = new Set<string>();
  for (const m of (instructions ?? '').matchAll(/[^\s<>()[\]{},;:"'`]+@[^\s<>()[\]{},;:"'`]+/g)) {
    const token = m[0].replace(/[.!?]+$/, '');
    const parsed = parseAddress(token);
    if (parsed.ok) out.add(mailboxKey(parsed.address));
  }
  return out;
}

function bareAddress(value: string): string | null {
  const parsed = parseAddress(value);
  return parsed.ok && parsed.name === undefined ? mailboxKey(parsed.address) : null;
}

/**
 * The decision table: the parsed actions against the inbox's settings. `available` says which
 * actions this deployment can carry out (drafts and forwards need their use-cases).
 */
export function decideAgentActions(
  actions: readonly AgentAction[],
  inbox: {
    allowed: readonly InboxAgentAction[];
    instructions: string | null;
    labels: readonly InboxLabelRecord[];
  },
  available: ReadonlySet<InboxAgentAction>,
): { ok: true; plan: AgentPlan } | AgentRefusal {
  const plan: AgentPlan = {
    folder: null,
    labelIds: [],
    assignee: undefined,
    forward: null,
    draft: null,
    actions: [],
  };
  const refuse = (reason: AgentRefusalReason, detail: string): AgentRefusal => ({
    ok: false,
    reason,
    detail,
  });
  const seen = new Set<InboxAgentAction>();
  for (const a of actions) {
    if (!inbox.allowed.includes(a.type))
      return refuse('not_allowed', `${a.type} is not among this inbox's agent actions`);
    if (seen.has(a.type)) return refuse('invalid_action', `${a.type} appears twice`);
    seen.add(a.type);
    switch (a.type) {
      case 'archive':
      case 'mark_as_spam':
      case 'move_to_trash':
        if (plan.folder !== null)
          return refuse('invalid_action', `${a.type}: only one folder move per answer`);
        plan.folder = FOLDER_OF[a.type];
        break;
      case 'add_labels':
        for (const name of a.labels) {
          const key = name.trim().toLowerCase();
          const label = inbox.labels.find((l) => l.id === key || l.name.toLowerCase() === key);
          if (!label)
            return refuse('invalid_action', `add_labels: no label ${JSON.stringify(name)} in this inbox`);
          if (!plan.labelIds.includes(label.id)) plan.labelIds.push(label.id);
        }
        break;
      case 'assign_thread': {
        if (a.assignee === null) {
          plan.assignee = null;
          break;
        }
        const who = bareAddress(a.assignee);
        if (!who)
          return refuse('invalid_action', `assign_thread: ${JSON.stringify(a.assignee)} is not an address`);
        plan.assignee = who;
        break;
      }
      case 'forward_thread': {
        const named = namedAddresses(inbox.instructions);
        const to: string[] = [];
        for (const t of a.to) {
          const who = bareAddress(t);
          if (!who || !named.has(who))
            return refuse(
              'invalid_action',
              `forward_thread: ${JSON.stringify(t)} is not an address the instructions name`,
            );
          if (!to.includes(who)) to.push(who);
        }
        plan.forward = { to, note: a.note ?? null };
        break;
      }
      case 'draft_reply':
        plan.draft = { text: a.text };
        break;
    }
    // checked after the action's own rules, so a forbidden forward says why whatever the deployment
    if (!available.has(a.type))
      return refuse('invalid_action', `${a.type} is not available in this deployment`);
    plan.actions.push(a);
  }
  return { ok: true, plan };
}

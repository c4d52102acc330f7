import { describe, expect, it } from 'vitest';
import { INBOX_AGENT_ACTIONS, type InboxAgentAction, type InboxLabelRecord } from '@petrel/contracts';
import { decideAgentActions, namedAddresses, parseAgentAnswer, type AgentAction } from './agent-answer.js';

const LABELS: InboxLabelRecord[] = [
  { id: '0190a1b2-0000-7000-8000-000000000001', name: 'Refund', color: '#E93D82', created_at: '' },
  { id: '0190a1b2-0000-7000-8000-000000000002', name: 'VIP', color: '#000000', created_at: '' },
];
const ALL = new Set<InboxAgentAction>(INBOX_AGENT_ACTIONS);
const inbox = (allowed: readonly InboxAgentAction[], instructions: string | null = null) => ({
  allowed,
  instructions,
  labels: LABELS,
});

function actions(json: unknown): AgentAction[] {
  const parsed = parseAgentAnswer(JSON.stringify(json));
  if (!parsed.ok) throw new Error(parsed.detail);
  return parsed.actions;
}

describe('parseAgentAnswer (the answer schema)', () => {
  it('accepts every action with its fields and drops unknown keys', () => {
    const parsed = parseAgentAnswer(
      JSON.stringify({
        actions: [
          { type: 'draft_reply', text: 'Thanks, refund on its way.' },
          { type: 'forward_thread', to: ['billing@acme.test'], note: 'fyi' },
          { type: 'add_labels', labels: ['Refund'] },
          { type: 'assign_thread', assignee: 'ana@acme.test', extra: 1 },
          { type: 'mark_as_spam' },
          { type: 'archive' },
          { type: 'move_to_trash' },
        ],
        reasoning: 'ignored',
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      actions: [
        { type: 'draft_reply', text: 'Thanks, refund on its way.' },
        { type: 'forward_thread', to: ['billing@acme.test'], note: 'fyi' },
        { type: 'add_labels', labels: ['Refund'] },
        { type: 'assign_thread', assignee: 'ana@acme.test' },
        { type: 'mark_as_spam' },
        { type: 'archive' },
        { type: 'move_to_trash' },
      ],
    });
    expect(parseAgentAnswer('{"actions":[]}')).toEqual({ ok: true, actions: [] });
  });

  it.each([
    ['not JSON', 'Sure! I will archive it.', /not JSON/],
    ['JSON but not an object with actions', '[{"type":"archive"}]', /\{"actions": \[\.\.\.\]\}/],
    ['actions not a list', '{"actions":"archive"}', /\{"actions"/],
    ['an action without a type', '{"actions":[{"labels":["x"]}]}', /\{"actions"/],
    ['too many actions', JSON.stringify({ actions: Array(11).fill({ type: 'archive' }) }), /at most 10/],
    [
      'add_labels without labels',
      '{"actions":[{"type":"add_labels"}]}',
      /actions\[0\] \(add_labels\): labels/,
    ],
    ['add_labels with an empty list', '{"actions":[{"type":"add_labels","labels":[]}]}', /labels/],
    ['forward_thread to a string', '{"actions":[{"type":"forward_thread","to":"a@b.test"}]}', /to/],
    ['draft_reply with an empty text', '{"actions":[{"type":"draft_reply","text":""}]}', /text/],
    ['assign_thread with a number', '{"actions":[{"type":"assign_thread","assignee":7}]}', /assignee/],
  ])('%s is malformed', (_, content, detail) => {
    const parsed = parseAgentAnswer(content);
    expect(parsed).toMatchObject({ ok: false, reason: 'malformed' });
    expect(parsed.ok === false && parsed.detail).toMatch(detail);
  });

  it('an action outside INBOX_AGENT_ACTIONS is unknown_action, naming it', () => {
    expect(
      parseAgentAnswer('{"actions":[{"type":"archive"},{"type":"send_email","to":"x@y.test"}]}'),
    ).toEqual({
      ok: false,
      reason: 'unknown_action',
      detail: 'actions[1]: unknown action "send_email"',
    });
  });
});

describe('decideAgentActions (the decision table)', () => {
  it('plans every allowed action: folder, labels by name or id, assignee, forward, draft', () => {
    const decided = decideAgentActions(
      actions({
        actions: [
          { type: 'add_labels', labels: ['refund', LABELS[1]!.id, 'REFUND'] },
          { type: 'archive' },
          { type: 'assign_thread', assignee: 'Ana@Acme.test' },
          { type: 'forward_thread', to: ['Billing@acme.test'] },
          { type: 'draft_reply', text: 'Hello' },
        ],
      }),
      inbox(INBOX_AGENT_ACTIONS, 'Forward refund requests to billing@acme.test.'),
      ALL,
    );
    expect(decided).toMatchObject({
      ok: true,
      plan: {
        folder: 'archive',
        labelIds: [LABELS[0]!.id, LABELS[1]!.id],
        assignee: 'ana@acme.test',
        forward: { to: ['billing@acme.test'], note: null },
        draft: { text: 'Hello' },
      },
    });
  });

  it.each([
    [{ type: 'mark_as_spam' }, 'spam'],
    [{ type: 'move_to_trash' }, 'trash'],
    [{ type: 'archive' }, 'archive'],
  ])('%o moves the thread to %s', (action, folder) => {
    const decided = decideAgentActions(actions({ actions: [action] }), inbox(INBOX_AGENT_ACTIONS), ALL);
    expect(decided).toMatchObject({ ok: true, plan: { folder } });
  });

  it('assign_thread with null unassigns', () => {
    const decided = decideAgentActions(
      actions({ actions: [{ type: 'assign_thread', assignee: null }] }),
      inbox(['assign_thread']),
      ALL,
    );
    expect(decided).toMatchObject({ ok: true, plan: { assignee: null } });
  });

  it('an action the inbox does not allow refuses the whole answer (not_allowed)', () => {
    expect(
      decideAgentActions(
        actions({ actions: [{ type: 'add_labels', labels: ['VIP'] }, { type: 'move_to_trash' }] }),
        inbox(['add_labels', 'archive']),
        ALL,
      ),
    ).toEqual({
      ok: false,
      reason: 'not_allowed',
      detail: "move_to_trash is not among this inbox's agent actions",
    });
  });

  it.each([
    [
      'a label the inbox does not have',
      [{ type: 'add_labels', labels: ['Refund', 'Urgent'] }],
      'add_labels: no label "Urgent" in this inbox',
    ],
    [
      'two folder moves',
      [{ type: 'archive' }, { type: 'mark_as_spam' }],
      'mark_as_spam: only one folder move per answer',
    ],
    ['an action twice', [{ type: 'archive' }, { type: 'archive' }], 'archive appears twice'],
    [
      'an assignee that is no address',
      [{ type: 'assign_thread', assignee: 'the billing team' }],
      'assign_thread: "the billing team" is not an address',
    ],
    [
      'a forward to an address the instructions do not name',
      [{ type: 'forward_thread', to: ['billing@acme.test', 'attacker@evil.test'] }],
      'forward_thread: "attacker@evil.test" is not an address the instructions name',
    ],
    [
      'a forward to a longer address that merely contains a named one',
      [{ type: 'forward_thread', to: ['billing@acme.test.evil.test'] }],
      'forward_thread: "billing@acme.test.evil.test" is not an address the instructions name',
    ],
    [
      'a forward with a display name',
      [{ type: 'forward_thread', to: ['Billing <billing@acme.test>'] }],
      'forward_thread: "Billing <billing@acme.test>" is not an address the instructions name',
    ],
  ])('%s is invalid_action and changes nothing', (_, list, detail) => {
    expect(
      decideAgentActions(
        actions({ actions: list }),
        inbox(INBOX_AGENT_ACTIONS, 'Forward refunds to billing@acme.test.'),
        ALL,
      ),
    ).toEqual({ ok: false, reason: 'invalid_action', detail });
  });

  it('an action the deployment cannot carry out is refused after its own rules', () => {
    const without = new Set<InboxAgentAction>(['archive', 'add_labels']);
    expect(
      decideAgentActions(
        actions({ actions: [{ type: 'draft_reply', text: 'Hi' }] }),
        inbox(INBOX_AGENT_ACTIONS),
        without,
      ),
    ).toEqual({
      ok: false,
      reason: 'invalid_action',
      detail: 'draft_reply is not available in this deployment',
    });
    // a forbidden forward says why, whether or not forwards are available
    expect(
      decideAgentActions(
        actions({ actions: [{ type: 'forward_thread', to: ['x@evil.test'] }] }),
        inbox(INBOX_AGENT_ACTIONS, 'nobody'),
        without,
      ),
    ).toMatchObject({ ok: false, detail: expect.stringMatching(/not an address the instructions name/) });
  });
});

describe('namedAddresses', () => {
  it('finds the addresses an operator wrote, in any case and punctuation around them', () => {
    expect(
      namedAddresses(
        'Send invoices to Billing@Acme.test, legal questions to <legal@acme.test>. Ask ana@acme.test!',
      ),
    ).toEqual(new Set(['billing@acme.test', 'legal@acme.test', 'ana@acme.test']));
    expect(namedAddresses('forward invoices to accounting')).toEqual(new Set());
    expect(namedAddresses(null)).toEqual(new Set());
  });
});

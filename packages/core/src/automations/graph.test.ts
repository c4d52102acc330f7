import { describe, expect, it } from 'vitest';
import { validationRefusal } from '@petrel/testing';
import { nextSteps, validateAutomationGraph, type RawGraph } from './graph.js';

type Step = RawGraph['steps'][number];
const trigger: Step = { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } };
const send = (key: string): Step => ({ key, type: 'send_email', config: { template: { id: 'welcome' } } });
const delay = (key: string, duration: unknown = '2 seconds'): Step => ({
  key,
  type: 'delay',
  config: { duration },
});
const cond: Step = {
  key: 'is_pro',
  type: 'condition',
  config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
};

/** The e2e's graph: trigger → welcome → delay → condition → pro | segment. */
const valid: RawGraph = {
  steps: [
    trigger,
    send('welcome'),
    delay('wait'),
    cond,
    send('pro'),
    { key: 'seg', type: 'add_to_segment', config: { segment_id: 'abc' } },
  ],
  connections: [
    { from: 'start', to: 'welcome' },
    { from: 'welcome', to: 'wait', type: 'default' },
    { from: 'wait', to: 'is_pro' },
    { from: 'is_pro', to: 'pro', type: 'condition_met' },
    { from: 'is_pro', to: 'seg', type: 'condition_not_met' },
  ],
};

const refusal = (g: RawGraph): string => validationRefusal(() => validateAutomationGraph(g));

/** The valid graph with the condition step's config replaced. */
const withCondition = (config: Record<string, unknown>): RawGraph => ({
  ...valid,
  steps: valid.steps.map((s) => (s.key === cond.key ? { ...s, config } : s)),
});

const wait = (over: Record<string, unknown> = {}): Step => ({
  key: 'w',
  type: 'wait_for_event',
  config: { event_name: 'order.paid', timeout: 'PT1S', ...over },
});
const waitGraph = (over: Record<string, unknown> = {}): RawGraph => ({
  steps: [trigger, wait(over), send('paid'), send('late')],
  connections: [
    { from: 'start', to: 'w' },
    { from: 'w', to: 'paid', type: 'event_received' },
    { from: 'w', to: 'late', type: 'timeout' },
  ],
});

describe('validateAutomationGraph', () => {
  it('accepts the welcome graph and defaults connection types', () => {
    const g = validateAutomationGraph(valid);
    expect(g.connections[0]).toEqual({ from: 'start', to: 'welcome', type: 'default' });
    expect(nextSteps(g, 'is_pro', 'condition_met')).toEqual(['pro']);
    expect(nextSteps(g, 'is_pro', 'condition_not_met')).toEqual(['seg']);
  });

  it('accepts a wait with both exits and a filter', () => {
    expect(() =>
      validateAutomationGraph(
        waitGraph({ filter_rule: { type: 'rule', field: 'event.total', operator: 'gt', value: 10 } }),
      ),
    ).not.toThrow();
  });

  it.each<[string, RawGraph, string]>([
    [
      'no trigger',
      { steps: [send('a')], connections: [] },
      'steps: exactly one step of type trigger is required',
    ],
    [
      'two triggers',
      { steps: [trigger, { ...trigger, key: 'again' }], connections: [{ from: 'start', to: 'again' }] },
      'steps[1].type: only one step of type trigger',
    ],
    [
      'duplicate keys',
      { steps: [trigger, send('a'), send('a')], connections: [{ from: 'start', to: 'a' }] },
      'steps[2].key: duplicates the key of steps[1]',
    ],
    [
      'unknown target',
      { steps: [trigger], connections: [{ from: 'start', to: 'nope' }] },
      'connections[0].to: no step has the key "nope"',
    ],
    [
      'unknown source',
      { steps: [trigger, send('a')], connections: [{ from: 'x', to: 'a' }] },
      'connections[0].from: no step has the key "x"',
    ],
    [
      'into the trigger',
      {
        steps: [trigger, send('a')],
        connections: [
          { from: 'start', to: 'a' },
          { from: 'a', to: 'start' },
        ],
      },
      'connections[1].to: the trigger cannot be the target',
    ],
    [
      'self loop',
      {
        steps: [trigger, send('a')],
        connections: [
          { from: 'start', to: 'a' },
          { from: 'a', to: 'a' },
        ],
      },
      'connections[1].to: a step cannot connect to itself',
    ],
    [
      'cycle',
      {
        steps: [trigger, send('a'), send('b')],
        connections: [
          { from: 'start', to: 'a' },
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      },
      'connections: the graph has a cycle: "a" → "b" → "a"',
    ],
    [
      'condition without else',
      { ...valid, connections: valid.connections.slice(0, 4) },
      'steps[3]: a condition step needs a connection of type condition_not_met',
    ],
    [
      'condition leaving by default',
      { ...valid, connections: [...valid.connections.slice(0, 3), { from: 'is_pro', to: 'pro' }] },
      'connections[3].type: a condition step connects with condition_met or condition_not_met, not default',
    ],
    [
      'wait without timeout exit',
      { ...waitGraph(), connections: waitGraph().connections.slice(0, 2) },
      'steps[1]: a wait_for_event step needs a connection of type timeout',
    ],
    [
      'send leaving by timeout',
      {
        steps: [trigger, send('a'), send('b')],
        connections: [
          { from: 'start', to: 'a' },
          { from: 'a', to: 'b', type: 'timeout' },
        ],
      },
      'connections[1].type: a send_email step connects with default, not timeout',
    ],
    [
      'duplicate connection',
      {
        steps: [trigger, send('a')],
        connections: [
          { from: 'start', to: 'a' },
          { from: 'start', to: 'a', type: 'default' },
        ],
      },
      'connections[1]: duplicates an earlier connection',
    ],
    [
      'unreachable step',
      { steps: [trigger, send('a'), send('b')], connections: [{ from: 'start', to: 'a' }] },
      'steps[2]: step "b" cannot be reached from the trigger',
    ],
    [
      'delay too long',
      { steps: [trigger, delay('d', '31 days')], connections: [{ from: 'start', to: 'd' }] },
      'steps[1].config.duration: must be at most 30 days',
    ],
    [
      'delay unreadable',
      { steps: [trigger, delay('d', 'soon')], connections: [{ from: 'start', to: 'd' }] },
      'steps[1].config.duration: is not a duration',
    ],
    [
      'delay not a string',
      { steps: [trigger, delay('d', 5)], connections: [{ from: 'start', to: 'd' }] },
      'steps[1].config.duration: must be a string',
    ],
    [
      'delay missing',
      {
        steps: [trigger, { key: 'd', type: 'delay', config: {} }],
        connections: [{ from: 'start', to: 'd' }],
      },
      'steps[1].config.duration: is required',
    ],
    [
      'wait timeout too long',
      waitGraph({ timeout: 'P31D' }),
      'steps[1].config.timeout: must be at most 30 days',
    ],
    [
      'trigger without event name',
      { steps: [{ key: 'start', type: 'trigger', config: {} }], connections: [] },
      'steps[0].config.event_name: is required',
    ],
    [
      'unknown config key',
      {
        steps: [{ key: 'start', type: 'trigger', config: { event_name: 'x', eventName: 'x' } }],
        connections: [],
      },
      'steps[0].config: unknown field `eventName`',
    ],
    [
      'send without template id',
      {
        steps: [trigger, { key: 'a', type: 'send_email', config: { template: {} } }],
        connections: [{ from: 'start', to: 'a' }],
      },
      'steps[1].config.template.id: is required',
    ],
    [
      'segment without id',
      {
        steps: [trigger, { key: 'a', type: 'add_to_segment', config: {} }],
        connections: [{ from: 'start', to: 'a' }],
      },
      'steps[1].config.segment_id: is required',
    ],
    [
      'condition with a bad operator',
      withCondition({ type: 'rule', field: 'event.plan', operator: 'like', value: 'x' }),
      'steps[3].config.operator: must be one of eq',
    ],
    [
      'condition gt with a string',
      withCondition({ type: 'rule', field: 'event.n', operator: 'gt', value: 'x' }),
      'steps[3].config.value: must be a number with the operator gt',
    ],
    [
      'condition exists with a value',
      withCondition({ type: 'rule', field: 'event.n', operator: 'exists', value: 1 }),
      'steps[3].config.value: must be absent with the operator exists',
    ],
    [
      'condition field outside the context',
      withCondition({ type: 'rule', field: 'plan', operator: 'eq', value: 'x' }),
      'steps[3].config.field: must start with event., contact. or wait_events.',
    ],
    [
      'condition group without rules',
      withCondition({ type: 'and', rules: [] }),
      'steps[3].config.rules: must hold at least one rule',
    ],
    [
      'condition of an unknown type',
      withCondition({ type: 'xor', rules: [] }),
      "steps[3].config.type: must be 'rule', 'and' or 'or'",
    ],
  ])('refuses %s', (_name, graph, message) => {
    expect(refusal(graph)).toContain(message);
  });

  it('refuses configs nested deeper than any valid one, without recursing into them', () => {
    let rule: Record<string, unknown> = { type: 'rule', field: 'event.a', operator: 'exists' };
    for (let i = 0; i < 50_000; i++) rule = { type: 'and', rules: [rule] };
    const g = withCondition(rule);
    expect(refusal(g)).toContain('steps[3].config: nests objects and arrays at most 20 levels deep');
  });

  it('refuses conditions nested too deep', () => {
    let rule: Record<string, unknown> = { type: 'rule', field: 'event.a', operator: 'exists' };
    for (let i = 0; i < 9; i++) rule = { type: 'and', rules: [rule] };
    const g = withCondition(rule);
    expect(refusal(g)).toContain('steps[3].config: conditions nest at most 8 levels deep');
  });
});

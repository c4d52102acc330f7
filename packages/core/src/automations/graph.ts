/**
 * The graph rules of an automation, checked on every write (POST, and PATCH of steps and
 * connections) — pure, so the API answers a clear 422 naming the field and a run never meets
 * a graph it cannot execute:
 *
 *  - each step's config has the shape of its type (`steps[2].config.duration: …`); durations
 *    parse and lie within 30 days; condition trees nest at most AUTOMATION_LIMITS.ruleDepth deep;
 *  - exactly one trigger, step keys unique;
 *  - every connection names existing steps, leaves a step with a type of connection that step
 *    has (condition: condition_met / condition_not_met; wait_for_event: event_received /
 *    timeout; others: default), and never enters the trigger; no connection twice;
 *  - a condition has both branches, a wait both exits;
 *  - no cycles (a run visits each step at most once), and every step is reachable from the
 *    trigger.
 */
import {
  AUTOMATION_LIMITS,
  STEP_CONFIG_SCHEMAS,
  fieldMessage,
  formatIssues,
  validationError,
  type AutomationConnection,
  type AutomationConnectionType,
  type AutomationGraph,
  type AutomationStep,
  type AutomationStepType,
  type ConditionRule,
} from '@petrel/contracts';
import { parseDuration } from './duration.js';

export interface RawGraph {
  steps: readonly { key: string; type: AutomationStepType; config: Record<string, unknown> }[];
  connections: readonly { from: string; to: string; type?: AutomationConnectionType | undefined }[];
}

/** The connection types a step of each type may leave by. */
const EXITS: Record<AutomationStepType, readonly AutomationConnectionType[]> = {
  trigger: ['default'],
  send_email: ['default'],
  delay: ['default'],
  wait_for_event: ['event_received', 'timeout'],
  condition: ['condition_met', 'condition_not_met'],
  contact_update: ['default'],
  contact_delete: ['default'],
  add_to_segment: ['default'],
};

/** The exits a step must have (a condition both branches, a wait both outcomes). */
const REQUIRED_EXITS: Partial<Record<AutomationStepType, readonly AutomationConnectionType[]>> = {
  condition: ['condition_met', 'condition_not_met'],
  wait_for_event: ['event_received', 'timeout'],
};

const fail = (path: readonly PropertyKey[], rule: string): never => {
  throw validationError(fieldMessage(path, rule));
};

function ruleDepth(rule: ConditionRule): number {
  return rule.type === 'rule' ? 1 : 1 + Math.max(0, ...rule.rules.map(ruleDepth));
}

function checkRule(rule: ConditionRule, path: readonly PropertyKey[]): void {
  if (ruleDepth(rule) > AUTOMATION_LIMITS.ruleDepth)
    fail(path, `conditions nest at most ${AUTOMATION_LIMITS.ruleDepth} levels deep`);
}

function checkDuration(text: string, path: readonly PropertyKey[]): void {
  const res = parseDuration(text, AUTOMATION_LIMITS.maxDurationMs);
  if (!res.ok) fail(path, res.reason);
}

/** Deepest nesting of objects and arrays in `value`, counted without recursion (it bounds the recursion of the schemas). */
function nesting(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_CONFIG_NESTING) break;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Room for the deepest condition tree (each level is a group object and its rules array) and then some. */
const MAX_CONFIG_NESTING = 2 * AUTOMATION_LIMITS.ruleDepth + 4;

function parseStep(raw: RawGraph['steps'][number], i: number): AutomationStep {
  const prefix = ['steps', i, 'config'];
  if (nesting(raw.config) > MAX_CONFIG_NESTING)
    fail(prefix, `nests objects and arrays at most ${MAX_CONFIG_NESTING} levels deep`);
  const res = STEP_CONFIG_SCHEMAS[raw.type].safeParse(raw.config);
  if (!res.success) throw validationError(formatIssues(res.error.issues, { prefix, input: raw.config }));
  const step = { key: raw.key, type: raw.type, config: res.data } as AutomationStep;
  if (step.type === 'delay') checkDuration(step.config.duration, [...prefix, 'duration']);
  if (step.type === 'wait_for_event') {
    if (step.config.timeout !== undefined) checkDuration(step.config.timeout, [...prefix, 'timeout']);
    if (step.config.filter_rule !== undefined) checkRule(step.config.filter_rule, [...prefix, 'filter_rule']);
  }
  if (step.type === 'condition') checkRule(step.config, prefix);
  return step;
}

/** The validated graph (configs parsed, connection types defaulted), or a 422 naming the field. */
export function validateAutomationGraph(raw: RawGraph): AutomationGraph {
  const steps = raw.steps.map(parseStep);

  const index = new Map<string, number>();
  steps.forEach((s, i) => {
    const seen = index.get(s.key);
    if (seen !== undefined) fail(['steps', i, 'key'], `duplicates the key of steps[${seen}] ("${s.key}")`);
    index.set(s.key, i);
  });
  const triggers = steps.flatMap((s, i) => (s.type === 'trigger' ? [i] : []));
  if (triggers.length === 0) fail(['steps'], 'exactly one step of type trigger is required (found none)');
  if (triggers.length > 1) fail(['steps', triggers[1]!, 'type'], 'only one step of type trigger is allowed');
  const trigger = steps[triggers[0]!]!;

  const connections: AutomationConnection[] = [];
  const seen = new Set<string>();
  const out = new Map<string, AutomationConnection[]>();
  raw.connections.forEach((c, i) => {
    const type = c.type ?? 'default';
    const from = index.get(c.from);
    if (from === undefined) fail(['connections', i, 'from'], `no step has the key "${c.from}"`);
    if (!index.has(c.to)) fail(['connections', i, 'to'], `no step has the key "${c.to}"`);
    if (c.from === c.to) fail(['connections', i, 'to'], 'a step cannot connect to itself');
    if (c.to === trigger.key)
      fail(['connections', i, 'to'], 'the trigger cannot be the target of a connection');
    const source = steps[from!]!;
    if (!EXITS[source.type].includes(type))
      fail(
        ['connections', i, 'type'],
        `a ${source.type} step connects with ${EXITS[source.type].join(' or ')}, not ${type}`,
      );
    const id = `${c.from}\n${c.to}\n${type}`;
    if (seen.has(id)) fail(['connections', i], 'duplicates an earlier connection');
    seen.add(id);
    const conn = { from: c.from, to: c.to, type };
    connections.push(conn);
    out.set(c.from, [...(out.get(c.from) ?? []), conn]);
  });

  steps.forEach((s, i) => {
    for (const exit of REQUIRED_EXITS[s.type] ?? []) {
      if (!(out.get(s.key) ?? []).some((c) => c.type === exit))
        fail(['steps', i], `a ${s.type} step needs a connection of type ${exit} (step "${s.key}")`);
    }
  });

  // Depth-first from the trigger: a grey step met again closes a cycle.
  const state = new Map<string, 'grey' | 'black'>();
  const visit = (key: string, trail: string[]): void => {
    state.set(key, 'grey');
    for (const c of out.get(key) ?? []) {
      const st = state.get(c.to);
      if (st === 'grey') {
        const loop = [...trail.slice(trail.indexOf(c.to)), key, c.to].map((k) => `"${k}"`).join(' → ');
        fail(['connections'], `the graph has a cycle: ${loop}`);
      }
      if (st === undefined) visit(c.to, [...trail, key]);
    }
    state.set(key, 'black');
  };
  visit(trigger.key, []);
  steps.forEach((s, i) => {
    if (!state.has(s.key)) fail(['steps', i], `step "${s.key}" cannot be reached from the trigger`);
  });
  return { steps, connections };
}

/** The steps a finished step leads to, by the exit it took. */
export function nextSteps(graph: AutomationGraph, from: string, exit: AutomationConnectionType): string[] {
  return graph.connections.filter((c) => c.from === from && c.type === exit).map((c) => c.to);
}

/**
 * Conditions of `condition` steps and `wait_for_event` filters, and `{ "var": … }` values: pure
 * reads over a run's context — the trigger event's payload (`event.*`), the contact as it is now
 * (`contact.*`: its fields, then its properties) and the events earlier waits received
 * (`wait_events.<event name>.*`).
 *
 * A path is split at dots; an event name holds dots itself (`user.signed_up`), so after
 * `wait_events.` the longest known event name wins. A missing value is `undefined`: `exists` is
 * false, `is_empty` true, and every comparison false (`neq` true), so a rule over a field an
 * event did not carry takes the not-met branch instead of failing the run.
 */
import type { ConditionRule, ContactRecord } from '@petrel/contracts';

export interface RunContext {
  /** The payload of the event that started the run. */
  event: Readonly<Record<string, unknown>>;
  /** The contact now, or null once deleted. */
  contact: ContactRecord | null;
  /** Payloads of the events earlier waits received, by event name. */
  waitEvents: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

function dig(value: unknown, path: readonly string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, key))
      return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function contactValue(contact: ContactRecord | null, path: readonly string[]): unknown {
  if (!contact || path.length === 0) return undefined;
  const [head, ...rest] = path;
  if (head === 'properties') return dig(contact.properties, rest);
  if (Object.hasOwn(contact, head!) && head !== 'properties') return dig(contact, path);
  return dig(contact.properties, path);
}

/** The value at `path` (`event.plan`, `contact.first_name`, `wait_events.order.paid.total`). */
export function resolvePath(path: string, ctx: RunContext): unknown {
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  const root = path.slice(0, dot);
  const rest = path.slice(dot + 1);
  if (root === 'event') return dig(ctx.event, rest.split('.'));
  if (root === 'contact') return contactValue(ctx.contact, rest.split('.'));
  if (root === 'wait_events') {
    const names = Object.keys(ctx.waitEvents)
      .filter((n) => rest === n || rest.startsWith(`${n}.`))
      .sort((a, b) => b.length - a.length);
    const name = names[0];
    if (name === undefined) return undefined;
    const payload = ctx.waitEvents[name]!;
    return rest === name ? payload : dig(payload, rest.slice(name.length + 1).split('.'));
  }
  return undefined;
}

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/** A number from a number or a numeric string (payloads often carry "42"). */
function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === undefined) return false;
  if (a === b) return true;
  const na = asNumber(a);
  const nb = asNumber(b);
  if (typeof a !== typeof b && na !== undefined && nb !== undefined) return na === nb;
  // booleans sent as text by some clients
  if (typeof b === 'boolean' && typeof a === 'string') return a === String(b);
  return false;
}

function compare(op: 'gt' | 'gte' | 'lt' | 'lte', a: unknown, b: unknown): boolean {
  let x: number | undefined = asNumber(a);
  let y: number | undefined = asNumber(b);
  // dates as ISO 8601 text compare by instant
  if (x === undefined && typeof a === 'string' && typeof b === 'number' && !Number.isNaN(Date.parse(a))) {
    x = Date.parse(a);
    y = b;
  }
  if (x === undefined || y === undefined) return false;
  return op === 'gt' ? x > y : op === 'gte' ? x >= y : op === 'lt' ? x < y : x <= y;
}

function text(op: 'contains' | 'starts_with' | 'ends_with', a: unknown, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  if (Array.isArray(a) && op === 'contains') return a.some((x) => equal(x, b));
  if (typeof a !== 'string' && typeof a !== 'number') return false;
  const s = String(a);
  return op === 'contains' ? s.includes(b) : op === 'starts_with' ? s.startsWith(b) : s.endsWith(b);
}

/** Whether `rule` holds in `ctx`. */
export function evaluateCondition(rule: ConditionRule, ctx: RunContext): boolean {
  if (rule.type !== 'rule')
    return rule.type === 'and'
      ? rule.rules.every((r) => evaluateCondition(r, ctx))
      : rule.rules.some((r) => evaluateCondition(r, ctx));
  const v = resolvePath(rule.field, ctx);
  switch (rule.operator) {
    case 'exists':
      return v !== undefined && v !== null;
    case 'is_empty':
      return isEmpty(v);
    case 'eq':
      return equal(v, rule.value);
    case 'neq':
      return !equal(v, rule.value);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(rule.operator, v, rule.value);
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      return text(rule.operator, v, rule.value);
  }
}

const isVar = (v: unknown): v is { var: string } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  typeof (v as { var?: unknown }).var === 'string' &&
  Object.keys(v).length === 1;

/** A config value with `{ "var": … }` replaced by what it names (undefined when absent). */
export function resolveValue(value: unknown, ctx: RunContext): unknown {
  return isVar(value) ? resolvePath(value.var, ctx) : value;
}

/**
 * A send's payload against its event's schema (Resend: "the payload is validated and coerced
 * against the schema if one exists"). Pure. The rules, per declared type:
 *
 * | type    | accepted as is       | coerced from                                    | refused             |
 * |---------|----------------------|-------------------------------------------------|---------------------|
 * | string  | a string             | a number or boolean (its JSON text: 42 → "42")  | object, array       |
 * | number  | a finite number      | a decimal string ("42", " -1.5e3 ")             | other strings, bool |
 * | boolean | true, false          | "true" / "false", any case, spaces trimmed      | anything else       |
 * | date    | –                    | an ISO 8601 date or date-time string → the UTC  | numbers (seconds or |
 * |         |                      | instant as `toISOString()`                      | ms? refused), other |
 *
 * A date-time without an offset is read as UTC; a date alone is midnight UTC. A space may stand
 * for the `T` and the offset may be `+hh`, `+hhmm` or `+hh:mm` (the shape of Resend's own
 * timestamps, `2023-10-06 23:47:56.678+00`). `null` passes for any type (no value), a declared
 * field may be absent (a condition step can test `exists`), and fields the schema does not
 * declare pass unchanged: the schema types what it names, it does not close the payload.
 */
import type { EventSchemaMap, EventSchemaType } from '@petrel/contracts';

export type CoercedPayload =
  { ok: true; payload: Record<string, unknown> } | { ok: false; field: string; rule: string };

/** The payload with each declared field coerced to its type, or the first field that cannot be. */
export function coercePayload(
  schema: EventSchemaMap,
  payload: Readonly<Record<string, unknown>>,
): CoercedPayload {
  const out: Record<string, unknown> = { ...payload };
  for (const [field, type] of Object.entries(schema)) {
    if (!Object.hasOwn(payload, field)) continue;
    const value = payload[field];
    if (value === null) continue;
    const res = coerceValue(type, value);
    if (!res.ok) return { ok: false, field, rule: res.rule };
    out[field] = res.value;
  }
  return { ok: true, payload: out };
}

type Coerced = { ok: true; value: unknown } | { ok: false; rule: string };

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** One value to one declared type (see the table in the header). */
export function coerceValue(type: EventSchemaType, value: unknown): Coerced {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, value: String(value) };
      return { ok: false, rule: `must be a string (got ${kind(value)})` };
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
      const s = typeof value === 'string' ? value.trim() : undefined;
      if (s !== undefined && DECIMAL.test(s) && Number.isFinite(Number(s)))
        return { ok: true, value: Number(s) };
      return { ok: false, rule: `must be a number or a decimal string (got ${kind(value)})` };
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { ok: true, value };
      const s = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
      if (s === 'true' || s === 'false') return { ok: true, value: s === 'true' };
      return { ok: false, rule: `must be a boolean, "true" or "false" (got ${kind(value)})` };
    }
    case 'date': {
      const iso = typeof value === 'string' ? isoInstant(value.trim()) : undefined;
      if (iso !== undefined) return { ok: true, value: iso };
      return { ok: false, rule: `must be an ISO 8601 date or date-time string (got ${kind(value)})` };
    }
  }
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/** The instant of an ISO 8601 date or date-time (see the header), or undefined. */
export function isoInstant(s: string): string | undefined {
  const m = ISO_DATE_TIME.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second, offH, offM] = [1, 2, 3, 4, 5, 6, 10, 11].map((i) =>
    Number(m[i] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  const frac = m[7] ?? '';
  const sign = m[9];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (offH > 23 || offM > 59) return undefined;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  // setUTCFullYear, not Date.UTC: the latter reads years 0..99 as 1900..1999
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // a day past the month's end rolls over (2024-02-30 → March 1): a calendar date must come back
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const offsetMin = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
  const instant = new Date(date.getTime() + ((hour * 60 + minute - offsetMin) * 60 + second) * 1000 + ms);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
}

/** What a refused value was, for the message (never the value itself: it may be long or private). */
function kind(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

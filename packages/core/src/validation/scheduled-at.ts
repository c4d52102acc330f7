/**
 * `scheduled_at` parsing, shared by POST /emails and PATCH /emails/:id: an ISO 8601 date-time or
 * natural language ("in 1 hour", "tomorrow at 9am") read relative to the caller's clock, in UTC
 * when the text names no zone. The result must lie in the future (less a small clock skew) and
 * at most `LIMITS.scheduleAheadMs` ahead.
 */
import * as chrono from 'chrono-node';
import { LIMITS } from '@petrel/contracts';
import { MSG, VALIDATION_RULES } from './rules.js';

export type ParsedScheduledAt = { ok: true; iso: string } | { ok: false; message: string };

/** Starts like a calendar date: parsed as ISO 8601 or refused, never handed to chrono. */
const LOOKS_ISO = /^\d{4}-\d{2}-\d{2}/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Resolves `input` against `nowMs` (the request's instant, epoch ms). `message` is the rule broken, without a field path
 * (the caller prefixes `scheduled_at: `). Never throws.
 */
export function parseScheduledAt(input: string, nowMs: number): ParsedScheduledAt {
  if (typeof input !== 'string') return { ok: false, message: MSG.string };
  const text = input.trim();
  if (text === '') return { ok: false, message: MSG.nonEmpty };
  if (text.length > VALIDATION_RULES.scheduledAtInputMaxLength) {
    return { ok: false, message: MSG.scheduledAtTooLong };
  }
  const at = LOOKS_ISO.test(text) ? parseIso(text) : parseNatural(text, nowMs);
  if (at === undefined) return { ok: false, message: MSG.scheduledAtFormat };
  if (at < nowMs - VALIDATION_RULES.scheduleSkewMs) return { ok: false, message: MSG.scheduledAtPast };
  if (at > nowMs + LIMITS.scheduleAheadMs) return { ok: false, message: MSG.scheduledAtTooFar };
  return { ok: true, iso: new Date(at).toISOString() };
}

/** Strict ISO 8601 (calendar date, optional time and offset; no offset means UTC) to epoch ms. */
function parseIso(text: string): number | undefined {
  const m = ISO.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, oh = '0', om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetH = Number(oh);
  const offsetM = Number(om);
  if (offsetH > 23 || offsetM > 59) return undefined;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  const offset = (sign === '-' ? -1 : 1) * (offsetH * 60 + offsetM) * 60_000;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/** chrono-node, accepted only when one expression covers the whole text. */
function parseNatural(text: string, nowMs: number): number | undefined {
  const results = chrono.parse(text, { instant: new Date(nowMs), timezone: 'UTC' }, { forwardDate: true });
  const only = results.length === 1 ? results[0] : undefined;
  if (only === undefined || only.index !== 0 || only.text.length !== text.length) return undefined;
  const at = only.start.date().getTime();
  return Number.isFinite(at) ? at : undefined;
}

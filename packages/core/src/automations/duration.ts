/**
 * Durations of `delay` steps and `wait_for_event` timeouts. Resend documents them as human text
 * ("30 minutes", "2 hours", "3 days"); ISO 8601 durations (`PT2S`, `P1DT2H`) are accepted too.
 * Pure: returns milliseconds, or the reason the text is not a duration.
 *
 * Human form: one or more `<number> <unit>` parts, optionally separated by commas or "and"
 * ("1 hour 30 minutes", "1 day, 2 hours"); units second/minute/hour/day/week, singular, plural
 * or abbreviated (s, sec, m, min, h, hr, d, w). ISO 8601 (ISO 8601-1:2019 §5.5.2): `P` then
 * weeks or days, `T` then hours, minutes, seconds (a fraction on the last number). Years and
 * months are refused: their length in days is not fixed.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

export type DurationResult = { ok: true; ms: number } | { ok: false; reason: string };

const ISO =
  /^P(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/i;
const HUMAN_PART = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/;

const num = (s: string | undefined): number => (s === undefined ? 0 : Number(s.replace(',', '.')));

function parseIso(text: string): DurationResult | undefined {
  if (!/^P/i.test(text)) return undefined;
  if (/[YM]/i.test(text.slice(1).split(/T/i)[0]!))
    return { ok: false, reason: 'years and months are not accepted (their length varies); use days' };
  const m = ISO.exec(text);
  if (!m || text.toUpperCase() === 'P' || /T$/i.test(text))
    return { ok: false, reason: 'is not an ISO 8601 duration such as PT30S, PT2H or P1DT12H' };
  const ms =
    num(m[1]) * UNIT_MS.w! +
    num(m[2]) * UNIT_MS.d! +
    num(m[3]) * UNIT_MS.h! +
    num(m[4]) * UNIT_MS.m! +
    num(m[5]) * 1000;
  return { ok: true, ms: Math.round(ms) };
}

function parseHuman(text: string): DurationResult {
  const parts = text
    .toLowerCase()
    .split(/\s*(?:,|\band\b)\s*|\s+(?=\d)/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return { ok: false, reason: 'must not be empty' };
  let ms = 0;
  for (const part of parts) {
    const m = HUMAN_PART.exec(part);
    const unit = m ? UNIT_MS[m[2]!] : undefined;
    if (!m || unit === undefined)
      return {
        ok: false,
        reason: `is not a duration such as "30 seconds", "2 hours", "1 day" or PT2S (could not read "${part.slice(0, 40)}")`,
      };
    ms += Number(m[1]) * unit;
  }
  return { ok: true, ms: Math.round(ms) };
}

/** Milliseconds of `text`, which must lie in (0, maxMs]. */
export function parseDuration(text: string, maxMs: number): DurationResult {
  const trimmed = text.trim();
  const res = parseIso(trimmed) ?? parseHuman(trimmed);
  if (!res.ok) return res;
  if (!Number.isFinite(res.ms) || res.ms <= 0) return { ok: false, reason: 'must be longer than zero' };
  if (res.ms > maxMs) return { ok: false, reason: `must be at most ${maxMs / 86_400_000} days` };
  return res;
}

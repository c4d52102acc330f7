/**
 * Periods of GET /emails/metrics in an IANA time zone, from the ECMAScript Intl API's zone data
 * (ECMA-402 `Intl.DateTimeFormat` with `timeZone`): the counters are kept per UTC hour, and each
 * hour is folded into the local hour, day, ISO week (Monday first, ISO 8601) or month its start
 * falls in. A period is named by the UTC instant it starts at, so a day in New York under
 * daylight saving time is `…T04:00:00.000Z`.
 *
 * Zones whose offset is not a whole number of hours (Asia/Kolkata +05:30) put each UTC hour in
 * the local day of its start: the half hour across local midnight counts in the day before.
 */
import type { MetricsGranularity } from './metric-names.js';

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `tz` is a time zone the runtime knows (an IANA name, or `UTC`). */
export function isTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

interface LocalTime {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
}

function localTime(ms: number, tz: string): LocalTime {
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(ms)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return { y: out.year!, mo: out.month!, d: out.day!, h: out.hour!, mi: out.minute! };
}

/** The zone's offset from UTC at `ms` (local wall time minus UTC), in ms. */
function offsetAt(ms: number, tz: string): number {
  const t = localTime(ms, tz);
  return Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi) - (ms - (((ms % 60_000) + 60_000) % 60_000));
}

/** The instant of local midnight starting the date y-mo-d in `tz` (day overflow allowed). */
export function localMidnight(y: number, mo: number, d: number, tz: string): number {
  const wall = Date.UTC(y, mo - 1, d);
  let t = wall - offsetAt(wall, tz);
  // across a change of offset the first guess is an hour off: once more with the offset there
  const again = wall - offsetAt(t, tz);
  if (again !== t) t = again;
  return t;
}

/** The start of the period of `granularity` in `tz` that the instant `ms` falls in. */
export function periodStart(ms: number, granularity: MetricsGranularity, tz: string): number {
  if (granularity === 'hourly') return Math.floor(ms / HOUR_MS) * HOUR_MS;
  const t = localTime(ms, tz);
  if (granularity === 'monthly') return localMidnight(t.y, t.mo, 1, tz);
  if (granularity === 'weekly') {
    const weekday = (new Date(Date.UTC(t.y, t.mo - 1, t.d)).getUTCDay() + 6) % 7; // Monday 0
    return localMidnight(t.y, t.mo, t.d - weekday, tz);
  }
  return localMidnight(t.y, t.mo, t.d, tz);
}

/** How far past a period's start the next one has surely begun (days are 23 to 25 hours). */
const STEP_PAST: Record<MetricsGranularity, number> = {
  hourly: HOUR_MS,
  daily: DAY_MS + 2 * HOUR_MS,
  weekly: 7 * DAY_MS + 2 * HOUR_MS,
  monthly: 32 * DAY_MS,
};

/**
 * The starts of every period that overlaps [fromMs, toMs), oldest first; throws RangeError past
 * `max` periods.
 */
export function periodStarts(
  fromMs: number,
  toMs: number,
  granularity: MetricsGranularity,
  tz: string,
  max: number,
): number[] {
  const out: number[] = [];
  for (let p = periodStart(fromMs, granularity, tz); p < toMs;) {
    out.push(p);
    if (out.length > max) throw new RangeError(`more than ${max} periods`);
    p = periodStart(p + STEP_PAST[granularity], granularity, tz);
  }
  return out;
}

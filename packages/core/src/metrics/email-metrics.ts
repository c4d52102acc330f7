/**
 * GET /emails/metrics (`resend.emails.metrics`): counts of sent, delivered, bounced… over a date
 * range, broken down by `dimensions`, answered from counters kept as the events were recorded —
 * never by reading the team's emails.
 *
 * Where the counts come from (the store keeps them, see docs/architecture.md "Email metrics"):
 *  - per UTC hour, the team's totals, each sending domain's and each broadcast's: one hash per
 *    team and hour, written by the script that records the events;
 *  - with `email_id` (at most 100 emails), each named email's own timeline.
 * Periods fold those hours into the requested zone's hours, days, ISO weeks or months
 * (periods.ts).
 */
import { validationError } from '@petrel/contracts';
import { UUID_RE } from '../kernel/ids.js';
import {
  COUNTED_METRICS,
  EMAIL_METRICS,
  METRICS_DIMENSIONS,
  METRICS_GRANULARITIES,
  RATE_METRICS,
  eventMetrics,
  type CountedMetric,
  type EmailMetric,
  type MetricsDimension,
  type MetricsGranularity,
  type RateMetric,
} from './metric-names.js';
import { HOUR_MS, isTimeZone, localMidnight, periodStart, periodStarts } from './periods.js';
import type { EmailStatus } from '@petrel/contracts';

/** At most this many periods in one answer (Resend's documented limit). */
export const METRICS_MAX_PERIODS = 10_000;
/** At most this many ids in each of `domain_id`, `email_id`, `broadcast_id`. */
export const METRICS_MAX_IDS = 100;
/** The range when `start_date` is not given: 6 days before `end_date`. */
export const METRICS_DEFAULT_RANGE_MS = 6 * 24 * HOUR_MS;

export interface MetricsQuery {
  startMs: number;
  endMs: number;
  timezone: string;
  granularity: MetricsGranularity;
  metrics: EmailMetric[];
  dimensions: MetricsDimension[];
  domainIds: string[];
  emailIds: string[];
  broadcastIds: string[];
}

export type Counts = Partial<Record<CountedMetric, number>>;

/** Counts of one UTC hour for one value of each dimension the source keeps (`''`: none). */
export interface MetricsCell {
  hourMs: number;
  domain: string;
  broadcast: string;
  email: string;
  counts: Counts;
}

function one(q: Record<string, unknown>, name: string): string | undefined {
  const v = q[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw validationError(`${name}: must be given once, as a string`);
  return v;
}

/** A list parameter: comma-separated, repeated, or both (as Resend accepts it). */
function list<T extends string>(
  q: Record<string, unknown>,
  name: string,
  check: (v: string) => v is T,
  rule: string,
): T[] {
  const v = q[name];
  if (v === undefined) return [];
  const parts = (Array.isArray(v) ? v : [v]).flatMap((x) => {
    if (typeof x !== 'string') throw validationError(`${name}: must be a comma-separated list`);
    return x.split(',');
  });
  const out: T[] = [];
  for (const raw of parts) {
    const s = raw.trim();
    if (s === '') continue;
    if (!check(s)) throw validationError(`${name}: "${s}" is not ${rule}`);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (v: string): v is T =>
    (values as readonly string[]).includes(v);
const isUuid = (v: string): v is string => UUID_RE.test(v);

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An ISO 8601 date or date-time. A date alone is a local day of `tz`: its midnight for a start,
 * the next midnight for an end (an end date includes its day).
 */
function dateParam(value: string, name: string, tz: string, edge: 'start' | 'end'): number {
  const d = DATE_ONLY.exec(value);
  if (d) {
    const day = Number(d[3]) + (edge === 'end' ? 1 : 0);
    const ms = localMidnight(Number(d[1]), Number(d[2]), day, tz);
    if (
      Number.isFinite(ms) &&
      new Date(Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]))).getUTCDate() === Number(d[3])
    )
      return ms;
  } else if (DATE_TIME.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw validationError(
    `${name}: must be an ISO 8601 date (2026-07-01) or date-time with a zone (2026-07-01T09:00:00Z)`,
  );
}

/** Reads the query string of GET /emails/metrics; throws 422 naming the field and its rule. */
export function parseMetricsQuery(q: Record<string, unknown>, nowMs: number): MetricsQuery {
  const timezone = one(q, 'timezone') ?? 'UTC';
  if (!isTimeZone(timezone))
    throw validationError(`timezone: "${timezone}" is not an IANA time zone (e.g. America/New_York)`);
  const granularity = one(q, 'granularity') ?? 'daily';
  if (!oneOf(METRICS_GRANULARITIES)(granularity))
    throw validationError(`granularity: must be one of ${METRICS_GRANULARITIES.join(', ')}`);
  const endRaw = one(q, 'end_date');
  const startRaw = one(q, 'start_date');
  // an end in the future is clamped to now (Resend's documented behaviour)
  const endMs = Math.min(
    endRaw === undefined ? nowMs : dateParam(endRaw, 'end_date', timezone, 'end'),
    nowMs,
  );
  const startMs =
    startRaw === undefined
      ? endMs - METRICS_DEFAULT_RANGE_MS
      : dateParam(startRaw, 'start_date', timezone, 'start');
  if (startMs > endMs) throw validationError('start_date: must be on or before end_date');
  const metrics = list(q, 'metrics', oneOf(EMAIL_METRICS), `a metric (${EMAIL_METRICS.join(', ')})`);
  const dimensions = list(
    q,
    'dimensions',
    oneOf(METRICS_DIMENSIONS),
    `a dimension (${METRICS_DIMENSIONS.join(', ')})`,
  );
  const ids = (name: string): string[] => {
    const out = list(q, name, isUuid, 'an id (a UUID)');
    if (out.length > METRICS_MAX_IDS) throw validationError(`${name}: at most ${METRICS_MAX_IDS} ids`);
    return out;
  };
  const domainIds = ids('domain_id');
  const emailIds = ids('email_id');
  const broadcastIds = ids('broadcast_id');
  const byEmail = dimensions.includes('email') || emailIds.length > 0;
  const byBroadcast = dimensions.includes('broadcast') || broadcastIds.length > 0;
  if (byEmail && byBroadcast) {
    throw validationError(
      dimensions.includes('email')
        ? 'dimensions: email cannot be combined with the broadcast dimension or broadcast_id'
        : 'email_id: cannot be combined with the broadcast dimension or broadcast_id',
    );
  }
  // one row per email of the team is not kept by the hour: the email dimension reads the named
  // emails' own timelines
  if (dimensions.includes('email') && emailIds.length === 0)
    throw validationError(`dimensions: email needs email_id (1 to ${METRICS_MAX_IDS} email ids)`);
  if (dimensions.includes('period')) {
    try {
      periodStarts(startMs, endMs, granularity, timezone, METRICS_MAX_PERIODS);
    } catch {
      throw validationError(
        `granularity: ${granularity} periods from start_date to end_date are more than ${METRICS_MAX_PERIODS}`,
      );
    }
  }
  return {
    startMs,
    endMs,
    timezone,
    granularity,
    metrics: metrics.length > 0 ? metrics : [...EMAIL_METRICS],
    dimensions,
    domainIds,
    emailIds,
    broadcastIds,
  };
}

/** The UTC hours whose counters a query reads: every hour overlapping the range. */
export function metricsHours(query: Pick<MetricsQuery, 'startMs' | 'endMs'>): number[] {
  const out: number[] = [];
  for (let h = Math.floor(query.startMs / HOUR_MS) * HOUR_MS; h < query.endMs; h += HOUR_MS) out.push(h);
  return out;
}

/** Where a query's counts are read from: the finest breakdown it needs. */
export function metricsSource(query: MetricsQuery): 'email' | 'broadcast' | 'domain' | 'team' {
  if (query.dimensions.includes('email') || query.emailIds.length > 0) return 'email';
  if (query.dimensions.includes('broadcast') || query.broadcastIds.length > 0) return 'broadcast';
  if (query.dimensions.includes('domain') || query.domainIds.length > 0) return 'domain';
  return 'team';
}

/** An email timeline entry as far as counting goes. */
export interface TimelineEvent {
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/**
 * The cells of one email from its timeline, by the hour of each event: what the hourly counters
 * count for it, with `received` for its first event (queued or scheduled) and `unique_*` for its
 * first open and click.
 */
export function timelineCells(
  emailId: string,
  domain: string,
  events: readonly TimelineEvent[],
): MetricsCell[] {
  const byHour = new Map<number, Counts>();
  const add = (ms: number, m: CountedMetric): void => {
    const h = Math.floor(ms / HOUR_MS) * HOUR_MS;
    const c = byHour.get(h) ?? {};
    c[m] = (c[m] ?? 0) + 1;
    byHour.set(h, c);
  };
  let opened = false;
  let clicked = false;
  events.forEach((e, i) => {
    const ms = Date.parse(e.created_at);
    if (!Number.isFinite(ms)) return;
    const status = e.type.startsWith('email.') ? (e.type.slice(6) as EmailStatus) : null;
    if (status === null) return;
    if (i === 0 && (status === 'queued' || status === 'scheduled')) add(ms, 'received');
    for (const m of eventMetrics(status, e.data)) add(ms, m);
    if (status === 'opened' && !opened) {
      opened = true;
      add(ms, 'unique_opened');
    }
    if (status === 'clicked' && !clicked) {
      clicked = true;
      add(ms, 'unique_clicked');
    }
  });
  return [...byHour].map(([hourMs, counts]) => ({ hourMs, domain, broadcast: '', email: emailId, counts }));
}

export interface MetricsLabels {
  /** A domain name's id among the team's domains (none: the row has `domain_name` only). */
  domainId(name: string): string | undefined;
  broadcastName(id: string): string | undefined;
}

export interface MetricsResponse {
  object: 'metrics';
  start_date: string;
  end_date: string;
  metrics: EmailMetric[];
  dimensions: MetricsDimension[];
  granularity: MetricsGranularity;
  totals: Partial<Record<EmailMetric, number>>;
  data?: Record<string, string | number>[];
}

function addCounts(into: Counts, from: Counts): void {
  for (const m of COUNTED_METRICS) {
    const v = from[m];
    if (v) into[m] = (into[m] ?? 0) + v;
  }
}

function project(counts: Counts, metrics: readonly EmailMetric[]): Partial<Record<EmailMetric, number>> {
  const out: Partial<Record<EmailMetric, number>> = {};
  for (const m of metrics) {
    if (m in RATE_METRICS) {
      const [num, den] = RATE_METRICS[m as RateMetric];
      const d = counts[den] ?? 0;
      out[m] = d === 0 ? 0 : Math.round(((counts[num] ?? 0) / d) * 10_000) / 10_000;
    } else out[m] = counts[m as CountedMetric] ?? 0;
  }
  return out;
}

/**
 * The answer: `totals` over every cell, and with dimensions one row per combination of their
 * values. With `period`, every period of the range has a row for each combination of the other
 * dimensions' values seen in the range (zeros included), oldest first.
 */
export function foldMetrics(
  query: MetricsQuery,
  cells: readonly MetricsCell[],
  labels: MetricsLabels,
): MetricsResponse {
  const totals: Counts = {};
  const dims = query.dimensions;
  const byPeriod = dims.includes('period');
  const others = dims.filter((d) => d !== 'period') as Exclude<MetricsDimension, 'period'>[];
  // the periods' starts once (a few Intl reads each); an hour is then placed by binary search
  const starts = byPeriod
    ? periodStarts(query.startMs, query.endMs, query.granularity, query.timezone, METRICS_MAX_PERIODS)
    : [];
  const periodOf = (hourMs: number): number => {
    if (starts.length === 0 || hourMs < starts[0]!)
      return periodStart(hourMs, query.granularity, query.timezone);
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= hourMs) lo = mid;
      else hi = mid - 1;
    }
    return starts[lo]!;
  };
  const rows = new Map<string, { period: number; values: string[]; counts: Counts }>();
  const combos = new Map<string, string[]>();
  for (const c of cells) {
    if (c.hourMs + HOUR_MS <= query.startMs || c.hourMs >= query.endMs) continue;
    addCounts(totals, c.counts);
    if (dims.length === 0) continue;
    const values = others.map((d) => c[d]);
    const comboKey = values.join('\u0000');
    combos.set(comboKey, values);
    const period = byPeriod ? periodOf(c.hourMs) : 0;
    const key = `${period}\u0000${comboKey}`;
    const row = rows.get(key) ?? { period, values, counts: {} };
    addCounts(row.counts, c.counts);
    rows.set(key, row);
  }
  const out: MetricsResponse = {
    object: 'metrics',
    start_date: new Date(query.startMs).toISOString(),
    end_date: new Date(query.endMs).toISOString(),
    metrics: query.metrics,
    dimensions: dims,
    granularity: query.granularity,
    totals: project(totals, query.metrics),
  };
  if (dims.length === 0) return out;
  const wire = (period: number, values: string[], counts: Counts): Record<string, string | number> => {
    const row: Record<string, string | number> = {};
    if (byPeriod) row.period = new Date(period).toISOString();
    others.forEach((d, i) => {
      const v = values[i]!;
      if (d === 'domain') {
        const id = labels.domainId(v);
        if (id !== undefined) row.domain_id = id;
        row.domain_name = v;
      } else if (d === 'broadcast') {
        row.broadcast_id = v;
        row.broadcast_name = labels.broadcastName(v) ?? '';
      } else row.email_id = v;
    });
    return { ...row, ...project(counts, query.metrics) };
  };
  const data: Record<string, string | number>[] = [];
  if (byPeriod) {
    const periods = starts;
    const comboList =
      others.length === 0
        ? [['', []] as [string, string[]]]
        : [...combos].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const p of periods)
      for (const [key, values] of comboList)
        data.push(wire(p, values, rows.get(`${p}\u0000${key}`)?.counts ?? {}));
  } else {
    const sorted = [...rows].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [, r] of sorted) data.push(wire(r.period, r.values, r.counts));
  }
  out.data = data;
  return out;
}

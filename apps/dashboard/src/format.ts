/**
 * Pure helpers of the dashboard (no DOM): query strings, routes, dates, the template preview,
 * progress figures. Tested in format.test.ts.
 */
import escape from 'escape-html';

export type QueryValues = Record<string, string | number | boolean | null | undefined>;

/** `?a=1&b=x` from the values that are set (empty strings and null are left out). */
export function buildQuery(values: QueryValues): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === null || v === '') continue;
    params.set(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

export interface Route {
  /** Path segments after `#/`, decoded: `#/emails/abc` → ['emails', 'abc']. */
  segments: string[];
  query: Record<string, string>;
}

/** The app's route from `location.hash` (`#/emails/abc?to=x`). */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query: Record<string, string> = {};
  if (q >= 0) new URLSearchParams(raw.slice(q + 1)).forEach((v, k) => (query[k] = v));
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query };
}

/** The hash for a route: `href('emails', id)` → `#/emails/<id>`. */
export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

/** A timestamp as the reader's local date and time; the raw value when it does not parse. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** `ok` | `bad` | `warn` | `neutral`: how a status word is shown. */
export function statusTone(status: string | null | undefined): 'ok' | 'bad' | 'warn' | 'neutral' {
  switch (status) {
    case 'delivered':
    case 'sent':
    case 'verified':
    case 'published':
    case 'completed':
    case 'enabled':
    case 'opened':
    case 'clicked':
    case 'succeeded':
    case 'success':
      return 'ok';
    case 'bounced':
    case 'failed':
    case 'complained':
    case 'canceled':
    case 'suppressed':
    case 'disabled':
    case 'partially_failed':
    case 'temporary_failure':
      return 'bad';
    case 'scheduled':
    case 'queued':
    case 'in_progress':
    case 'pending':
    case 'delivery_delayed':
    case 'partially_verified':
    case 'not_started':
    case 'retrying':
      return 'warn';
    default:
      return 'neutral';
  }
}

/** Sample values for a preview from `KEY=value` lines (blank lines and lines without `=` are skipped). */
export function parseSampleVariables(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (key) out[key] = line.slice(eq + 1).trim();
  }
  return out;
}

/** `& < > " '` as entities: `escape-html`, the escaper the API and core use too. */
export const escapeHtml: (s: string) => string = escape;

/** The placeholder syntax the API renders: `{{{NAME}}}`, `{{{ NAME | fallback }}}`, dotted names. */
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*(?:\|([^{}]*))?\}\}\}/g;

/**
 * A preview of a template part with sample values, as the API renders it: a value (escaped in
 * html), else the declared fallback (escaped in html), else the inline `|fallback` (verbatim),
 * else the placeholder is left as written so the author sees what is missing.
 */
export function renderPreview(
  source: string,
  values: Readonly<Record<string, string>>,
  opts: { html: boolean; fallbacks?: Readonly<Record<string, string | number | null | undefined>> },
): string {
  const esc = opts.html ? escapeHtml : (s: string) => s;
  return source.replace(PLACEHOLDER, (raw, name: string, inline: string | undefined) => {
    const v = values[name];
    if (v !== undefined) return esc(v);
    const declared = opts.fallbacks?.[name];
    if (declared !== undefined && declared !== null) return esc(String(declared));
    if (inline !== undefined) return inline.trim();
    return raw;
  });
}

/** Variable names used by a template source, in first-use order. */
export function placeholderNames(source: string): string[] {
  const seen = new Set<string>();
  for (const m of source.matchAll(PLACEHOLDER)) seen.add(m[1]!);
  return [...seen];
}

export interface ImportCounts {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

/** Rows handled so far and the share of the total (0–100), for a contact import's progress bar. */
export function importProgress(
  counts: ImportCounts | null | undefined,
  status: string,
): {
  done: number;
  total: number;
  percent: number;
} {
  const total = counts?.total ?? 0;
  const done = counts ? counts.created + counts.updated + counts.skipped + counts.failed : 0;
  if (status === 'completed') return { done, total: Math.max(total, done), percent: 100 };
  if (total <= 0) return { done, total, percent: 0 };
  return { done, total, percent: Math.min(100, Math.round((done / total) * 100)) };
}

/** `a@x, b@y` → ['a@x', 'b@y'] (commas or new lines; blanks dropped). */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export const STAT_METRICS = ['sent', 'delivered', 'bounced', 'complained'] as const;
type StatMetric = (typeof STAT_METRICS)[number];

/** One lane's counters over time, columns aligned on `times` (unix seconds), for the charts. */
export interface LaneSeries {
  lane: string;
  times: number[];
  values: Record<StatMetric, number[]>;
  totals: Record<StatMetric, number>;
}

const toSeconds = (t: unknown): number | undefined => {
  if (typeof t === 'number') return t > 1e11 ? Math.floor(t / 1000) : t;
  if (typeof t === 'string') {
    const ms = Date.parse(t);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  }
  return undefined;
};

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * The per-lane series from GET /stats/emails: rows `{ bucket (hour start), lane, sent, delivered,
 * bounced, complained, … }` in `data`. Also reads `timestamp`/`time` for the time and a `lanes`
 * object of row lists; rows are summed per lane and time, sorted by time.
 */
export function laneSeries(body: unknown): LaneSeries[] {
  const points: Record<string, unknown>[] = [];
  const b = (body ?? {}) as Record<string, unknown>;
  const pushAll = (list: unknown, lane?: string) => {
    if (!Array.isArray(list)) return;
    for (const p of list)
      if (p && typeof p === 'object') points.push(lane ? { lane, ...p } : (p as Record<string, unknown>));
  };
  pushAll(b.data);
  if (b.lanes && typeof b.lanes === 'object' && !Array.isArray(b.lanes)) {
    for (const [lane, list] of Object.entries(b.lanes as Record<string, unknown>)) {
      if (Array.isArray(list)) pushAll(list, lane);
      else if (list && typeof list === 'object')
        pushAll((list as Record<string, unknown>).points ?? (list as Record<string, unknown>).data, lane);
    }
  }
  const byLane = new Map<string, Map<number, Record<StatMetric, number>>>();
  for (const p of points) {
    const t = toSeconds(p.bucket ?? p.timestamp ?? p.time);
    if (t === undefined) continue;
    const lane = typeof p.lane === 'string' ? p.lane : 'all';
    const times = byLane.get(lane) ?? new Map<number, Record<StatMetric, number>>();
    byLane.set(lane, times);
    const row = times.get(t) ?? { sent: 0, delivered: 0, bounced: 0, complained: 0 };
    for (const m of STAT_METRICS) row[m] += num(p[m]);
    times.set(t, row);
  }
  return [...byLane.entries()]
    .sort(([a], [b2]) => a.localeCompare(b2))
    .map(([lane, times]) => {
      const sorted = [...times.entries()].sort(([a], [c]) => a - c);
      const values = { sent: [], delivered: [], bounced: [], complained: [] } as Record<StatMetric, number[]>;
      const totals = { sent: 0, delivered: 0, bounced: 0, complained: 0 };
      for (const [, row] of sorted)
        for (const m of STAT_METRICS) {
          values[m].push(row[m]);
          totals[m] += row[m];
        }
      return { lane, times: sorted.map(([t]) => t), values, totals };
    });
}

export interface DeclaredVariable {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
}

/**
 * A template's declared variables from lines `KEY`, `KEY=fallback`, `KEY:number` or
 * `KEY:number=5` (blank lines skipped). A number fallback that is not a number stays a string, for
 * the API to refuse with its own message.
 */
export function parseDeclaredVariables(text: string): DeclaredVariable[] {
  const out: DeclaredVariable[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    const head = (eq < 0 ? line : line.slice(0, eq)).trim();
    const fallback = eq < 0 ? null : line.slice(eq + 1).trim();
    const [key = '', kind] = head.split(':').map((s) => s.trim());
    const type = kind === 'number' ? 'number' : 'string';
    const asNumber = fallback !== null && type === 'number' && fallback !== '' ? Number(fallback) : NaN;
    out.push({ key, type, fallback_value: Number.isFinite(asNumber) ? asNumber : fallback });
  }
  return out;
}

/** The lines {@link parseDeclaredVariables} reads, from declared variables. */
export function formatDeclaredVariables(vars: readonly DeclaredVariable[]): string {
  return vars
    .map(
      (v) =>
        `${v.key}${v.type === 'number' ? ':number' : ''}${v.fallback_value === null || v.fallback_value === undefined ? '' : `=${v.fallback_value}`}`,
    )
    .join('\n');
}

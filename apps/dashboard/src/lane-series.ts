/** The overview's chart data: GET /stats/emails as one series per lane. Tested in lane-series.test.ts. */
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

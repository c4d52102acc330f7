/**
 * Overview: sent / delivered / bounced / complained over time, one chart per lane, from the
 * counters the service keeps (GET /stats/emails), with the totals as a table (the charts'
 * text alternative).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api } from '../api';
import { STAT_METRICS, laneSeries, type LaneSeries } from '../lane-series';
import { ErrorNote, Loading, Page, Select, Table, useAsync } from '../ui';

const COLORS: Record<(typeof STAT_METRICS)[number], string> = {
  sent: '#1d4ed8',
  delivered: '#15803d',
  bounced: '#b91c1c',
  complained: '#a16207',
};

const RANGES = [
  { value: '24h', label: 'last 24 hours' },
  { value: '7d', label: 'last 7 days' },
  { value: '30d', label: 'last 30 days' },
];

/** The period's bounds; the API counts per hour (at most 31 days a request). */
function rangeQuery(range: string): { from: string; to: string } {
  const now = Date.now();
  const days = range === '30d' ? 30 : range === '7d' ? 7 : 1;
  return { from: new Date(now - days * 86_400_000).toISOString(), to: new Date(now).toISOString() };
}

function LaneChart({ s }: { s: LaneSeries }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const width = Math.max(320, Math.min(900, el.clientWidth || 720));
    const chart = new uPlot(
      {
        width,
        height: 220,
        series: [{}, ...STAT_METRICS.map((m) => ({ label: m, stroke: COLORS[m], width: 2 }))],
        axes: [{}, { size: 50 }],
        scales: { x: { time: true } },
      },
      [s.times, ...STAT_METRICS.map((m) => s.values[m])],
      el,
    );
    return () => chart.destroy();
  }, [s]);
  return (
    <figure class="chart">
      <div ref={host} aria-hidden="true" />
      <figcaption>
        Lane <strong>{s.lane}</strong>: {STAT_METRICS.map((m) => `${s.totals[m]} ${m}`).join(', ')}
      </figcaption>
    </figure>
  );
}

export function Overview() {
  const [range, setRange] = useState('24h');
  const stats = useAsync(() => api.get<unknown>('/stats/emails', rangeQuery(range)), [range]);
  const series = stats.data ? laneSeries(stats.data) : [];
  return (
    <Page title="Overview">
      <form class="inline" onSubmit={(e) => e.preventDefault()}>
        <Select label="Period" id="ov-range" value={range} onValue={setRange} options={RANGES} />
      </form>
      <ErrorNote error={stats.error} />
      {stats.loading && !stats.data ? (
        <Loading what="statistics" />
      ) : series.length === 0 ? (
        <p class="muted">No email activity in this period.</p>
      ) : (
        <>
          {series.map((s) => (
            <LaneChart key={s.lane} s={s} />
          ))}
          <h2>Totals</h2>
          <Table
            caption="Totals per lane"
            rows={series}
            rowKey={(s) => s.lane}
            columns={[
              { header: 'Lane', cell: (s) => s.lane },
              ...STAT_METRICS.map((m) => ({
                header: m[0]!.toUpperCase() + m.slice(1),
                cell: (s: LaneSeries) => String(s.totals[m]),
              })),
            ]}
          />
        </>
      )}
    </Page>
  );
}

/**
 * The use-case of GET /emails/metrics: parse the query, read the cells of the source it needs
 * (the team's hourly counters, or the named emails' timelines), keep the filtered domains and
 * broadcasts, and fold them into the answer.
 */
import { fromDomain } from '../domains/sending.js';
import {
  foldMetrics,
  metricsHours,
  metricsSource,
  parseMetricsQuery,
  timelineCells,
  type MetricsCell,
  type MetricsResponse,
  type TimelineEvent,
} from './email-metrics.js';
import { HOUR_MS } from './periods.js';

export interface EmailMetricsPorts {
  counters: {
    /** How long the hourly counters are kept after their hour (older hours read as zeros). */
    retentionMs: number;
    /** The cells of `hours` at the breakdown `by`: the team's totals, per domain or per broadcast. */
    read(
      teamId: string,
      hours: readonly number[],
      by: 'team' | 'domain' | 'broadcast',
    ): Promise<MetricsCell[]>;
  };
  emails: {
    /** Each email's `from` and timeline, oldest first; absent ids are left out. */
    timelines(
      teamId: string,
      ids: readonly string[],
    ): Promise<{ id: string; from: string; events: TimelineEvent[] }[]>;
  };
  domains: {
    get(teamId: string, id: string): Promise<{ id: string; name: string } | null>;
    byName(teamId: string, name: string): Promise<{ id: string; name: string } | null>;
  };
  broadcasts: {
    get(teamId: string, id: string): Promise<{ id: string; name: string | null; from: string } | null>;
  };
  clock: { now(): number };
}

export async function getEmailMetrics(
  ports: EmailMetricsPorts,
  teamId: string,
  rawQuery: Record<string, unknown>,
): Promise<MetricsResponse> {
  const now = ports.clock.now();
  const query = parseMetricsQuery(rawQuery, now);
  const source = metricsSource(query);

  let cells: MetricsCell[];
  if (source === 'email') {
    const emails = await ports.emails.timelines(teamId, query.emailIds);
    cells = emails.flatMap((e) => timelineCells(e.id, fromDomain(e.from) ?? '', e.events));
  } else {
    // hours past the counters' retention are gone: not read
    const oldest = Math.floor((now - ports.counters.retentionMs) / HOUR_MS) * HOUR_MS - HOUR_MS;
    const hours = metricsHours(query).filter((h) => h >= oldest);
    cells = await ports.counters.read(teamId, hours, source);
  }

  const broadcasts = new Map<string, { name: string | null; from: string } | null>();
  if (source === 'broadcast') {
    const ids = new Set(cells.map((c) => c.broadcast));
    await Promise.all([...ids].map(async (id) => broadcasts.set(id, await ports.broadcasts.get(teamId, id))));
    // a broadcast's emails are sent from its `from`: its domain
    cells = cells
      .filter((c) => broadcasts.get(c.broadcast))
      .map((c) => ({ ...c, domain: fromDomain(broadcasts.get(c.broadcast)!.from) ?? '' }));
    if (query.broadcastIds.length > 0) cells = cells.filter((c) => query.broadcastIds.includes(c.broadcast));
  }
  if (query.domainIds.length > 0) {
    // another team's domain id names nothing here: no cell matches it
    const names = new Set(
      (await Promise.all(query.domainIds.map((id) => ports.domains.get(teamId, id)))).flatMap((d) =>
        d ? [d.name] : [],
      ),
    );
    cells = cells.filter((c) => names.has(c.domain));
  }

  const domainIds = new Map<string, string | undefined>();
  if (query.dimensions.includes('domain')) {
    const names = new Set(cells.map((c) => c.domain));
    await Promise.all(
      [...names].map(async (n) => domainIds.set(n, (await ports.domains.byName(teamId, n))?.id)),
    );
  }
  return foldMetrics(query, cells, {
    domainId: (name) => domainIds.get(name),
    broadcastName: (id) => broadcasts.get(id)?.name ?? undefined,
  });
}

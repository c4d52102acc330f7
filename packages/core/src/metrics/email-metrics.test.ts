import { describe, expect, it } from 'vitest';
import { validationRefusal } from '@petrel/testing';
import { periodStart, periodStarts } from './periods.js';
import { eventMetrics } from './metric-names.js';
import { foldMetrics, parseMetricsQuery, timelineCells, type MetricsCell } from './email-metrics.js';
import { parseRecipientsQuery, recipientRow, linkCursor, linkCursorUrl } from './broadcast-analytics.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const at = (s: string): number => Date.parse(s);
const NOW = at('2026-07-20T12:34:00Z');

function rejects(q: Record<string, unknown>, field: string): void {
  expect(validationRefusal(() => parseMetricsQuery(q, NOW)).startsWith(`${field}: `)).toBe(true);
}

describe('periods in a time zone', () => {
  it('folds a UTC hour into the local day, ISO week and month it starts in', () => {
    // 03:00 UTC on 1 July is still 30 June in New York (EDT, UTC-4)
    const h = at('2026-07-01T03:00:00Z');
    expect(iso(periodStart(h, 'daily', 'America/New_York'))).toBe('2026-06-30T04:00:00.000Z');
    expect(iso(periodStart(h, 'daily', 'UTC'))).toBe('2026-07-01T00:00:00.000Z');
    expect(iso(periodStart(h, 'hourly', 'America/New_York'))).toBe('2026-07-01T03:00:00.000Z');
    // 30 June 2026 is a Tuesday: its ISO week starts on Monday 29 June
    expect(iso(periodStart(h, 'weekly', 'America/New_York'))).toBe('2026-06-29T04:00:00.000Z');
    expect(iso(periodStart(h, 'monthly', 'America/New_York'))).toBe('2026-06-01T04:00:00.000Z');
    expect(iso(periodStart(h, 'monthly', 'Asia/Tokyo'))).toBe('2026-06-30T15:00:00.000Z');
    // winter: EST, UTC-5
    expect(iso(periodStart(at('2026-01-15T12:00:00Z'), 'daily', 'America/New_York'))).toBe(
      '2026-01-15T05:00:00.000Z',
    );
  });

  it('gives days of 23 and 25 hours across daylight saving changes', () => {
    const days = periodStarts(
      at('2026-03-07T12:00:00Z'),
      at('2026-03-10T12:00:00Z'),
      'daily',
      'America/New_York',
      100,
    );
    expect(days.map(iso)).toEqual([
      '2026-03-07T05:00:00.000Z',
      '2026-03-08T05:00:00.000Z', // 8 March: clocks go forward at 2:00, a 23-hour day
      '2026-03-09T04:00:00.000Z',
      '2026-03-10T04:00:00.000Z',
    ]);
    const fall = periodStarts(
      at('2026-10-31T12:00:00Z'),
      at('2026-11-02T12:00:00Z'),
      'daily',
      'America/New_York',
      100,
    );
    expect(fall[2]! - fall[1]!).toBe(25 * 3_600_000);
  });

  it('puts an hour of a half-hour zone in the local day of its start', () => {
    // 18:00 UTC is 23:30 in Kolkata (UTC+05:30): the day of 1 July
    expect(iso(periodStart(at('2026-07-01T18:00:00Z'), 'daily', 'Asia/Kolkata'))).toBe(
      '2026-06-30T18:30:00.000Z',
    );
    expect(iso(periodStart(at('2026-07-01T19:00:00Z'), 'daily', 'Asia/Kolkata'))).toBe(
      '2026-07-01T18:30:00.000Z',
    );
  });

  it('stops past the limit of periods', () => {
    expect(() => periodStarts(0, 10 * 3_600_000, 'hourly', 'UTC', 5)).toThrow(RangeError);
    expect(periodStarts(0, 5 * 3_600_000, 'hourly', 'UTC', 5)).toHaveLength(5);
  });
});

describe('parseMetricsQuery', () => {
  it('defaults: the 6 days before now, UTC, daily, every metric, no dimension', () => {
    const q = parseMetricsQuery({}, NOW);
    expect(q.endMs).toBe(NOW);
    expect(q.startMs).toBe(NOW - 6 * 24 * 3_600_000);
    expect(q).toMatchObject({ timezone: 'UTC', granularity: 'daily', dimensions: [] });
    expect(q.metrics).toContain('delivery_rate');
    expect(q.metrics).toContain('bounced_permanent');
  });

  it('reads a date as a local day of the zone (an end date includes its day) and clamps the end to now', () => {
    const q = parseMetricsQuery(
      { start_date: '2026-07-01', end_date: '2026-07-02', timezone: 'Europe/Paris' },
      NOW,
    );
    expect(iso(q.startMs)).toBe('2026-06-30T22:00:00.000Z');
    expect(iso(q.endMs)).toBe('2026-07-02T22:00:00.000Z');
    expect(parseMetricsQuery({ end_date: '2030-01-01T00:00:00Z' }, NOW).endMs).toBe(NOW);
  });

  it('takes lists comma-separated, repeated or both', () => {
    const q = parseMetricsQuery(
      { metrics: ['sent,delivered', 'open_rate'], dimensions: 'period,domain' },
      NOW,
    );
    expect(q.metrics).toEqual(['sent', 'delivered', 'open_rate']);
    expect(q.dimensions).toEqual(['period', 'domain']);
  });

  it('refuses bad parameters with 422 naming the field', () => {
    rejects({ granularity: 'yearly' }, 'granularity');
    rejects({ timezone: 'Mars/Olympus' }, 'timezone');
    rejects({ metrics: 'sent,revenue' }, 'metrics');
    rejects({ dimensions: 'period,country' }, 'dimensions');
    rejects({ start_date: 'yesterday' }, 'start_date');
    rejects({ start_date: '2026-02-30' }, 'start_date');
    rejects({ end_date: '2026-07-01T10:00:00' }, 'end_date'); // a date-time needs its zone
    rejects({ start_date: '2026-07-10', end_date: '2026-07-01' }, 'start_date');
    rejects({ domain_id: 'not-a-uuid' }, 'domain_id');
    rejects(
      { dimensions: 'email,broadcast', email_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' },
      'dimensions',
    );
    rejects(
      {
        email_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        broadcast_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
      },
      'email_id',
    );
    rejects({ dimensions: 'email' }, 'dimensions');
    rejects({ dimensions: 'period', granularity: 'hourly', start_date: '2024-01-01' }, 'granularity');
    rejects({ timezone: ['UTC', 'UTC'] }, 'timezone');
  });
});

describe('foldMetrics', () => {
  const cell = (hour: string, counts: MetricsCell['counts'], domain = ''): MetricsCell => ({
    hourMs: at(hour),
    domain,
    broadcast: '',
    email: '',
    counts,
  });
  const labels = {
    domainId: (n: string) => (n === 'a.test' ? 'dom-a' : undefined),
    broadcastName: () => undefined,
  };

  it('totals the range, computes rates and leaves out data without dimensions', () => {
    const q = parseMetricsQuery(
      {
        start_date: '2026-07-01T00:00:00Z',
        end_date: '2026-07-02T00:00:00Z',
        metrics: 'sent,delivered,delivery_rate,open_rate',
      },
      NOW,
    );
    const res = foldMetrics(
      q,
      [
        cell('2026-07-01T01:00:00Z', { received: 4, sent: 3, delivered: 2, unique_opened: 1 }),
        cell('2026-07-01T05:00:00Z', { sent: 1, delivered: 1 }),
        cell('2026-07-02T05:00:00Z', { sent: 50 }), // outside the range
      ],
      labels,
    );
    expect(res.totals).toEqual({ sent: 4, delivered: 3, delivery_rate: 0.75, open_rate: 0.3333 });
    expect(res.data).toBeUndefined();
    expect(res).toMatchObject({
      object: 'metrics',
      start_date: '2026-07-01T00:00:00.000Z',
      granularity: 'daily',
    });
  });

  it('folds UTC hours into the zone days, every day of the range with a row, zeros included', () => {
    const q = parseMetricsQuery(
      {
        start_date: '2026-07-01',
        end_date: '2026-07-03',
        timezone: 'America/New_York',
        dimensions: 'period',
        metrics: 'sent',
      },
      NOW,
    );
    const res = foldMetrics(
      q,
      [
        cell('2026-07-01T03:00:00Z', { sent: 5 }), // 30 June in New York: before the range
        cell('2026-07-01T04:00:00Z', { sent: 1 }), // midnight, 1 July
        cell('2026-07-02T03:00:00Z', { sent: 2 }), // 23:00, 1 July
        cell('2026-07-04T03:00:00Z', { sent: 7 }), // 23:00, 3 July
      ],
      labels,
    );
    expect(res.data).toEqual([
      { period: '2026-07-01T04:00:00.000Z', sent: 3 },
      { period: '2026-07-02T04:00:00.000Z', sent: 0 },
      { period: '2026-07-03T04:00:00.000Z', sent: 7 },
    ]);
    expect(res.totals).toEqual({ sent: 10 });
  });

  it('breaks down by domain with the team domain id when it has one', () => {
    const q = parseMetricsQuery(
      { start_date: '2026-07-01', end_date: '2026-07-01', dimensions: 'domain', metrics: 'delivered' },
      NOW,
    );
    const res = foldMetrics(
      q,
      [
        cell('2026-07-01T01:00:00Z', { delivered: 2 }, 'a.test'),
        cell('2026-07-01T02:00:00Z', { delivered: 1 }, 'b.test'),
        cell('2026-07-01T03:00:00Z', { delivered: 4 }, 'a.test'),
      ],
      labels,
    );
    expect(res.data).toEqual([
      { domain_id: 'dom-a', domain_name: 'a.test', delivered: 6 },
      { domain_name: 'b.test', delivered: 1 },
    ]);
  });
});

describe('event counting', () => {
  it('counts a bounce by its kind', () => {
    expect(eventMetrics('bounced', { bounce: { type: 'Permanent' } })).toEqual([
      'bounced',
      'bounced_permanent',
    ]);
    expect(eventMetrics('bounced', { bounce: { type: 'Temporary' } })).toEqual([
      'bounced',
      'bounced_transient',
    ]);
    expect(eventMetrics('bounced', {})).toEqual(['bounced', 'bounced_undetermined']);
    expect(eventMetrics('queued', {})).toEqual([]);
    expect(eventMetrics('canceled', {})).toEqual([]);
  });

  it('counts an email from its timeline: received once, the first open and click unique', () => {
    const ev = (type: string, t: string, data: Record<string, unknown> = {}) => ({
      type,
      created_at: t,
      data,
    });
    const cells = timelineCells('e1', 'a.test', [
      ev('email.queued', '2026-07-01T10:00:00Z'),
      ev('email.sent', '2026-07-01T10:00:01Z'),
      ev('email.delivered', '2026-07-01T10:00:02Z'),
      ev('email.opened', '2026-07-01T11:10:00Z'),
      ev('email.opened', '2026-07-01T11:20:00Z'),
      ev('email.clicked', '2026-07-01T12:00:00Z'),
    ]);
    expect(cells).toEqual([
      {
        hourMs: at('2026-07-01T10:00:00Z'),
        domain: 'a.test',
        broadcast: '',
        email: 'e1',
        counts: { received: 1, sent: 1, delivered: 1 },
      },
      {
        hourMs: at('2026-07-01T11:00:00Z'),
        domain: 'a.test',
        broadcast: '',
        email: 'e1',
        counts: { opened: 2, unique_opened: 1 },
      },
      {
        hourMs: at('2026-07-01T12:00:00Z'),
        domain: 'a.test',
        broadcast: '',
        email: 'e1',
        counts: { clicked: 1, unique_clicked: 1 },
      },
    ]);
  });
});

describe('broadcast analytics rules', () => {
  it('needs a known type; bounce_type only with bounced', () => {
    expect(() => parseRecipientsQuery({})).toThrow(/^type: is required/);
    expect(() => parseRecipientsQuery({ type: 'read' })).toThrow(/^type: must be one of/);
    expect(() => parseRecipientsQuery({ type: 'opened', bounce_type: 'permanent' })).toThrow(
      /^bounce_type: only valid/,
    );
    expect(() => parseRecipientsQuery({ type: 'bounced', bounce_type: 'soft' })).toThrow(
      /^bounce_type: must be one of/,
    );
    expect(() => parseRecipientsQuery({ type: 'sent', email: 'nobody' })).toThrow(
      /^email: must be an email address/,
    );
    expect(parseRecipientsQuery({ type: 'bounced', bounce_type: 'permanent' }).group).toBe(
      'bounced_permanent',
    );
    expect(parseRecipientsQuery({ type: 'sent', email: 'Ada <ADA@Example.test>' }).toTerm).toBe(
      'to:ada@example.test',
    );
  });

  it('shapes a row with the fields the SDK types for its type', () => {
    const r = {
      emailId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      contactId: null,
      email: 'a@x.test',
      opens: 2,
      clicks: 1,
      bounceKind: null,
      links: [{ url: 'https://x.test/', clicks: 1 }],
    };
    expect(Object.keys(recipientRow('sent', r))).toEqual(['id', 'contact_id', 'email']);
    expect(recipientRow('opened', r)).toMatchObject({ count: 2 });
    expect(recipientRow('clicked', r)).toMatchObject({
      count: 1,
      clicked_links: [{ url: 'https://x.test/', clicks: 1 }],
    });
    expect(recipientRow('bounced', r)).toMatchObject({ bounce_type: 'undetermined' });
    expect(linkCursorUrl(linkCursor('https://x.test/a?b=c'), 'after')).toBe('https://x.test/a?b=c');
  });
});

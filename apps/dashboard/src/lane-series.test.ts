import { describe, expect, it } from 'vitest';
import { laneSeries } from './lane-series.js';

describe('laneSeries', () => {
  it('groups points per lane and sums per time, sorted', () => {
    const s = laneSeries({
      data: [
        { lane: 'transactional', bucket: '2026-01-01T01:00:00.000Z', sent: 2, delivered: 1, opened: 9 },
        { lane: 'transactional', timestamp: '2026-01-01T00:00:00Z', sent: 1, bounced: 1 },
        { lane: 'broadcast', timestamp: '2026-01-01T00:00:00Z', complained: 3 },
      ],
    });
    expect(s.map((l) => l.lane)).toEqual(['broadcast', 'transactional']);
    const t = s[1]!;
    expect(t.times).toEqual([
      Date.parse('2026-01-01T00:00:00Z') / 1000,
      Date.parse('2026-01-01T01:00:00Z') / 1000,
    ]);
    expect(t.values.sent).toEqual([1, 2]);
    expect(t.totals).toEqual({ sent: 3, delivered: 1, bounced: 1, complained: 0 });
  });
  it('reads a lanes object too, and ignores junk', () => {
    const s = laneSeries({ lanes: { bulk: [{ time: 1_700_000_000_000, sent: 4 }, { nope: 1 }] } });
    expect(s).toHaveLength(1);
    expect(s[0]!.times).toEqual([1_700_000_000]);
    expect(laneSeries(null)).toEqual([]);
  });
});

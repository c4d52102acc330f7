import { describe, expect, it } from 'vitest';
import client from 'prom-client';
import { allOf, labelCombinations, zeroSeries } from './metrics.js';

/** The sample lines of a registry in the Prometheus text format. */
async function samples(registry: client.Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l && !l.startsWith('#'));
}

describe('labelCombinations', () => {
  it('gives every combination of the label values', () => {
    expect(labelCombinations({ kind: ['sent', 'soft_fail'], lane: ['send', 'broadcast'] })).toEqual([
      { kind: 'sent', lane: 'send' },
      { kind: 'sent', lane: 'broadcast' },
      { kind: 'soft_fail', lane: 'send' },
      { kind: 'soft_fail', lane: 'broadcast' },
    ]);
  });

  it('gives none when a label has no value', () => {
    expect(labelCombinations({ kind: ['sent'], lane: [] })).toEqual([]);
  });
});

describe('allOf', () => {
  it('lists the keys of the record', () => {
    expect(allOf<'a' | 'b'>({ a: true, b: true })).toEqual(['a', 'b']);
  });
});

describe('zeroSeries', () => {
  it("exports a counter's series at 0 before any increment", async () => {
    const registry = new client.Registry();
    const counter = new client.Counter({
      name: 'test_outcomes_total',
      help: 'test',
      labelNames: ['kind', 'lane'],
      registers: [registry],
    });
    expect(await samples(registry)).toEqual([]);
    zeroSeries(counter, { kind: ['sent', 'hard_fail'], lane: ['send'] });
    expect(await samples(registry)).toEqual([
      'test_outcomes_total{kind="sent",lane="send"} 0',
      'test_outcomes_total{kind="hard_fail",lane="send"} 0',
    ]);
  });

  it("exports a histogram's buckets, sum and count at 0, and a second call keeps what was observed", async () => {
    const registry = new client.Registry();
    const histogram = new client.Histogram({
      name: 'test_step_seconds',
      help: 'test',
      labelNames: ['type'],
      buckets: [1],
      registers: [registry],
    });
    zeroSeries(histogram, { type: ['delay'] });
    expect(await samples(registry)).toEqual([
      'test_step_seconds_bucket{le="1",type="delay"} 0',
      'test_step_seconds_bucket{le="+Inf",type="delay"} 0',
      'test_step_seconds_sum{type="delay"} 0',
      'test_step_seconds_count{type="delay"} 0',
    ]);
    histogram.observe({ type: 'delay' }, 0.5);
    // another producer of the same process zeroes the same series: the observation stays
    zeroSeries(histogram, { type: ['delay'] });
    expect(await samples(registry)).toContain('test_step_seconds_count{type="delay"} 1');
  });
});

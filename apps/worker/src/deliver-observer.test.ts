import { afterEach, describe, expect, it, vi } from 'vitest';
import { emailToDeliver } from '@petrel/testing';
import { log, registry } from '@petrel/observability';
import { deliverObserver } from './deliver-observer.js';

/** A counter's series, or a histogram's observation count (its `_count` series). */
async function value(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  const series = metric?.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  const count = series?.find((v) => (v as { metricName?: string }).metricName === `${name}_count`);
  return (count ?? series?.[0])?.value ?? 0;
}

describe('deliverObserver', () => {
  afterEach(() => vi.restoreAllMocks());
  const observer = deliverObserver('broadcast');

  it('counts SMTP results by kind and lane, and times them', async () => {
    const before = await value('petrel_send_outcomes_total', { kind: 'soft_fail', lane: 'broadcast' });
    const timed = await value('petrel_smtp_send_duration_seconds', { kind: 'soft_fail' });
    observer.onSmtpResult({ kind: 'soft_fail', detail: '451' }, 0.05);
    expect(await value('petrel_send_outcomes_total', { kind: 'soft_fail', lane: 'broadcast' })).toBe(
      before + 1,
    );
    expect(await value('petrel_smtp_send_duration_seconds', { kind: 'soft_fail' })).toBe(timed + 1);
  });

  it('a delivery is timed from acceptance', async () => {
    const before = await value('petrel_accept_to_delivered_seconds');
    observer.onOutcome({ kind: 'delivered' }, emailToDeliver());
    expect(await value('petrel_accept_to_delivered_seconds')).toBe(before + 1);
  });

  it('logs the outcomes an operator looks for', () => {
    const warn = vi.spyOn(log(), 'warn').mockImplementation(() => undefined);
    const info = vi.spyOn(log(), 'info').mockImplementation(() => undefined);
    observer.onOutcome({ kind: 'missing' }, null);
    observer.onOutcome({ kind: 'skipped', status: 'canceled' }, emailToDeliver());
    observer.onOutcome(
      { kind: 'bounced', bounce: 'Temporary', code: 451, detail: '451 later' },
      emailToDeliver(),
    );
    observer.onOutcome(
      { kind: 'bounced', bounce: 'Permanent', code: 550, detail: '550 no' },
      emailToDeliver(),
    );
    expect(warn.mock.calls).toEqual([
      ['email record not found (expired or deleted); nothing to send'],
      [{ detail: '451 later' }, 'retries exhausted; email bounced (transient)'],
    ]);
    expect(info.mock.calls).toEqual([[{ status: 'canceled' }, 'email is no longer sendable; skipping']]);
  });
});

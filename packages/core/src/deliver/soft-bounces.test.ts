import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SOFT_BOUNCE_SETTINGS,
  softBounceFacts,
  softBounceStreakTtlMs,
  softBounceSuppresses,
} from './soft-bounces.js';
import type { SendResult } from './ports.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

describe('softBounceSuppresses', () => {
  const settings = { emails: 3, days: 2 };

  it('suppresses at N emails spanning at least M days', () => {
    expect(softBounceSuppresses({ emails: 3, firstMs: T0 }, settings, T0 + 2 * DAY)).toBe(true);
    expect(softBounceSuppresses({ emails: 5, firstMs: T0 }, settings, T0 + 9 * DAY)).toBe(true);
  });

  it('not with fewer emails, however long the span', () => {
    expect(softBounceSuppresses({ emails: 2, firstMs: T0 }, settings, T0 + 30 * DAY)).toBe(false);
  });

  it('not when the emails fall within less than M days (one bad day at a provider)', () => {
    expect(softBounceSuppresses({ emails: 10, firstMs: T0 }, settings, T0 + 2 * DAY - 1)).toBe(false);
  });

  it('days 0: N emails in a row suffice', () => {
    expect(softBounceSuppresses({ emails: 3, firstMs: T0 }, { emails: 3, days: 0 }, T0)).toBe(true);
  });

  it('emails 0 switches the rule off', () => {
    expect(softBounceSuppresses({ emails: 99, firstMs: T0 }, { emails: 0, days: 0 }, T0 + DAY)).toBe(false);
  });

  it('the documented defaults: 3 emails over 2 days', () => {
    expect(DEFAULT_SOFT_BOUNCE_SETTINGS).toEqual({ emails: 3, days: 2 });
  });

  it('a streak outlives its latest bounce by 30 days, or twice a longer span', () => {
    expect(softBounceStreakTtlMs({ emails: 3, days: 2 })).toBe(30 * DAY);
    expect(softBounceStreakTtlMs({ emails: 3, days: 20 })).toBe(40 * DAY);
  });
});

describe('softBounceFacts', () => {
  const soft: SendResult = { kind: 'soft_fail', code: 451, detail: '451 4.2.1 busy' };
  const sent = (rejected: { address: string; permanent: boolean }[] = []): SendResult => ({
    kind: 'sent',
    code: 250,
    response: '250 ok',
    rejected: rejected.map((r) => ({ ...r, code: r.permanent ? 550 : 451, detail: 'no' })),
  });

  it('a Temporary bounce (retries spent) soft-bounces every recipient', () => {
    expect(softBounceFacts({ kind: 'bounced', bounce: 'Temporary' }, soft, ['a@x.test', 'b@x.test'])).toEqual(
      {
        softBounced: ['a@x.test', 'b@x.test'],
        delivered: [],
      },
    );
  });

  it('delivered: the 4xx-refused recipients soft-bounced (final), the 5xx ones neither, the rest delivered', () => {
    const result = sent([
      { address: 'B@X.test', permanent: false },
      { address: 'c@x.test', permanent: true },
    ]);
    expect(softBounceFacts({ kind: 'delivered' }, result, ['a@x.test', 'b@x.test', 'c@x.test'])).toEqual({
      softBounced: ['b@x.test'],
      delivered: ['a@x.test'],
    });
  });

  it('a recipient whose domain was deferred (no server asked) is not a soft bounce', () => {
    const result: SendResult = {
      kind: 'sent',
      code: 250,
      response: '250 ok',
      rejected: [{ address: 'b@y.test', permanent: false, detail: 'warm-up cap', deferred: true }],
    };
    expect(softBounceFacts({ kind: 'delivered' }, result, ['a@x.test', 'b@y.test'])).toEqual({
      softBounced: [],
      delivered: ['a@x.test'],
    });
  });

  it('a delay with retries left and a Permanent bounce say nothing', () => {
    expect(softBounceFacts({ kind: 'delayed' }, soft, ['a@x.test'])).toEqual({
      softBounced: [],
      delivered: [],
    });
    const hard: SendResult = { kind: 'hard_fail', code: 550, detail: '550 5.1.1 no' };
    expect(softBounceFacts({ kind: 'bounced', bounce: 'Permanent' }, hard, ['a@x.test'])).toEqual({
      softBounced: [],
      delivered: [],
    });
  });
});

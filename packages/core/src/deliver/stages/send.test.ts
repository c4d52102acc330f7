import { describe, expect, it } from 'vitest';
import type { SendResult } from '../ports.js';
import { combine } from './send.js';

const deferral: SendResult = {
  kind: 'soft_fail',
  detail: 'warm-up cap',
  retryAfterMs: 4_000,
  deferred: true,
};
const greylisted: SendResult = { kind: 'soft_fail', code: 451, detail: '451 4.7.1 greylisted' };
const hard: SendResult = { kind: 'hard_fail', code: 550, detail: '550 5.1.1 no such user' };

describe('combine (several domains of one email, read as one transaction)', () => {
  it('a deferral stands for the email only when no server was asked for anyone', () => {
    expect(combine([deferral, deferral], [['a@x.test'], ['b@y.test']])).toBe(deferral);
    expect(combine([deferral, hard], [['a@x.test'], ['b@y.test']])).toBe(deferral);
  });

  it("a deferred domain's recipients, when another got the message, are listed as deferred", () => {
    const sent: SendResult = { kind: 'sent', code: 250, response: '250 ok' };
    expect(combine([sent, deferral], [['a@x.test'], ['b@y.test']])).toMatchObject({
      kind: 'sent',
      rejected: [{ address: 'b@y.test', permanent: false, deferred: true }],
    });
  });

  it('a real temporary refusal elsewhere is an attempt: it wins over a deferral', () => {
    expect(combine([deferral, greylisted], [['a@x.test'], ['b@y.test']])).toBe(greylisted);
    expect(combine([greylisted, deferral], [['a@x.test'], ['b@y.test']])).toBe(greylisted);
  });
});

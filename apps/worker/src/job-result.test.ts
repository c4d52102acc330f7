import { describe, expect, it } from 'vitest';
import type { DeliverOutcome } from '@petrel/core';
import { UnrecoverableError } from '@petrel/queue';
import { SoftFailError, toJobResult, waitsWithoutAttempt } from './job-result.js';

describe('toJobResult', () => {
  it.each<[DeliverOutcome, string]>([
    [{ kind: 'delivered' }, 'delivered'],
    [{ kind: 'missing' }, 'missing'],
    [{ kind: 'skipped', status: 'canceled' }, 'skipped'],
    [{ kind: 'bounced', bounce: 'Temporary', code: 451, detail: '451 later' }, 'bounced'],
    [{ kind: 'failed', stage: 'resolve-content', reason: 'template gone' }, 'failed'],
    [{ kind: 'failed', stage: 'render', reason: 'variables without value: NAME' }, 'failed'],
  ])('%j completes the job as %s', (outcome, result) => {
    expect(toJobResult(outcome)).toBe(result);
  });

  it('a delay is a SoftFailError carrying the server hint, for the backoff strategy', () => {
    const outcome: DeliverOutcome = {
      kind: 'delayed',
      detail: '451 try again in 5 minutes',
      retryAfterMs: 300_000,
    };
    const err = catchFrom(() => toJobResult(outcome));
    expect(err).toBeInstanceOf(SoftFailError);
    expect(err).toMatchObject({
      message: 'temporary failure: 451 try again in 5 minutes',
      retryAfterMs: 300_000,
    });
  });

  it.each<[DeliverOutcome, string]>([
    [
      { kind: 'bounced', bounce: 'Permanent', code: 550, detail: '550 5.1.1 no such user' },
      'permanent SMTP failure 550: 550 5.1.1 no such user',
    ],
    [{ kind: 'failed', stage: 'build-mime', reason: 'bad header' }, 'message cannot be built: bad header'],
  ])('%j is never retried', (outcome, message) => {
    const err = catchFrom(() => toJobResult(outcome));
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).message).toBe(message);
  });
});

function catchFrom(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('waitsWithoutAttempt', () => {
  const NOW = 1_000_000;
  it('a held email waits until its next look; a deferral until the sender said', () => {
    expect(waitsWithoutAttempt({ kind: 'held', untilMs: NOW + 2_000 }, NOW)).toBe(NOW + 2_000);
    expect(
      waitsWithoutAttempt(
        { kind: 'delayed', detail: 'warm-up cap', retryAfterMs: 4_000, deferred: true },
        NOW,
      ),
    ).toBe(NOW + 4_000);
  });

  it('a real temporary failure spends an attempt (the backoff decides), and the rest do not wait', () => {
    expect(
      waitsWithoutAttempt({ kind: 'delayed', detail: '451 later', retryAfterMs: 4_000 }, NOW),
    ).toBeNull();
    expect(waitsWithoutAttempt({ kind: 'delivered' }, NOW)).toBeNull();
  });

  it('a deferral is never a job result', () => {
    expect(() => toJobResult({ kind: 'delayed', detail: 'warm-up cap', deferred: true })).toThrow(
      'a deferral is the processor’s to delay',
    );
  });
});

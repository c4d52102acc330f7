import { describe, expect, it } from 'vitest';
import { importProgress, statusTone } from './format.js';

describe('importProgress', () => {
  it('counts handled rows against the total', () => {
    expect(
      importProgress({ total: 10, created: 3, updated: 1, skipped: 0, failed: 1 }, 'in_progress'),
    ).toEqual({
      done: 5,
      total: 10,
      percent: 50,
    });
    expect(importProgress(null, 'queued')).toEqual({ done: 0, total: 0, percent: 0 });
    expect(
      importProgress({ total: 0, created: 2, updated: 0, skipped: 0, failed: 0 }, 'completed').percent,
    ).toBe(100);
  });
});

describe('statusTone', () => {
  it('maps statuses to tones, an unknown one to neutral', () => {
    const tones = { delivered: 'ok', bounced: 'bad', queued: 'warn', whatever: 'neutral' };
    const shown = Object.fromEntries(Object.keys(tones).map((status) => [status, statusTone(status)]));
    expect(shown).toEqual(tones);
  });
});

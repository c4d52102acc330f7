import { describe, expect, it } from 'vitest';
import { Lifecycle } from './lifecycle.js';

describe('Lifecycle.stop', () => {
  it('closes last-registered-first', async () => {
    const order: string[] = [];
    const lc = new Lifecycle(1_000);
    for (const name of ['redis', 'worker', 'api']) lc.onStop(name, async () => void order.push(name));
    await lc.stop('test');
    expect(order).toEqual(['api', 'worker', 'redis']);
    expect(lc.timedOut).toEqual([]);
  });

  it('leaves a closer that never settles behind at its deadline and still runs the ones after it', async () => {
    const order: string[] = [];
    const lc = new Lifecycle(1_000, 50);
    lc.onStop('redis', async () => void order.push('redis'));
    lc.onStop('stuck', () => new Promise<void>(() => undefined)); // e.g. QUIT to a dead node
    lc.onStop('failing', () => Promise.reject(new Error('boom')));
    await lc.stop('test');
    expect(order).toEqual(['redis']);
    expect(lc.timedOut).toEqual(['stuck']);
  });

  it('is one stop however often it is called', async () => {
    let closes = 0;
    const lc = new Lifecycle(1_000);
    lc.onStop('once', async () => void closes++);
    await Promise.all([lc.stop('a'), lc.stop('b')]);
    expect(closes).toBe(1);
  });
});

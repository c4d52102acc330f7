/**
 * The per-endpoint cap as pure logic: a first attempt waiting for a slot is handed the next one
 * released (the queue worker's tryAcquire cannot take it meanwhile), a wait that runs out gives
 * no slot and leaves the count as it was, and endpoints never share slots.
 */
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersEachTest } from '@petrel/testing';
import { EndpointSlots } from './endpoint-slots.js';

fakeTimersEachTest();

describe('EndpointSlots', () => {
  it('gives at most `limit` slots per endpoint, each endpoint its own', () => {
    const slots = new EndpointSlots(2);
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.tryAcquire('a')).toBe(false);
    expect(slots.tryAcquire('b')).toBe(true);
    slots.release('a');
    expect(slots.held('a')).toBe(1);
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.held('a')).toBe(2);
  });

  it('hands a released slot to the waiting first attempt, not to tryAcquire', async () => {
    const slots = new EndpointSlots(1);
    expect(slots.tryAcquire('a')).toBe(true); // a queued delivery holds the only slot
    let got: boolean | undefined;
    const waiting = slots.acquire('a', 100).then((ok) => (got = ok));
    await Promise.resolve();
    expect(got).toBeUndefined();
    slots.release('a');
    // the queue worker asks in the same turn: the slot is the waiter's
    expect(slots.tryAcquire('a')).toBe(false);
    await waiting;
    expect(got).toBe(true);
    expect(slots.held('a')).toBe(1);
    vi.advanceTimersByTime(1_000); // its timer was cleared: nothing changes
    expect(slots.held('a')).toBe(1);
    slots.release('a');
    expect(slots.held('a')).toBe(0);
    expect(slots.tryAcquire('a')).toBe(true);
  });

  it('gives no slot when the wait runs out, and the count stays right afterwards', async () => {
    const slots = new EndpointSlots(1);
    expect(slots.tryAcquire('a')).toBe(true);
    const waiting = slots.acquire('a', 100);
    vi.advanceTimersByTime(99);
    expect(slots.tryAcquire('a')).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await waiting).toBe(false);
    expect(slots.held('a')).toBe(1);
    slots.release('a'); // no waiter left: the slot is freed
    expect(slots.held('a')).toBe(0);
    expect(slots.tryAcquire('a')).toBe(true);
  });

  it('serves waiters first come, first served', async () => {
    const slots = new EndpointSlots(1);
    slots.tryAcquire('a');
    const order: number[] = [];
    const first = slots.acquire('a', 100).then((ok) => ok && order.push(1));
    const second = slots.acquire('a', 100).then((ok) => ok && order.push(2));
    slots.release('a');
    await first;
    expect(order).toEqual([1]);
    slots.release('a');
    await second;
    expect(order).toEqual([1, 2]);
    expect(slots.held('a')).toBe(1);
  });

  it('takes a free slot at once without waiting', async () => {
    const slots = new EndpointSlots(1);
    expect(await slots.acquire('a', 100)).toBe(true);
    expect(slots.held('a')).toBe(1);
  });
});

describe('EndpointSlots.forFirstAttempt', () => {
  it('waits for a slot once, then sends first attempts of a slow endpoint to the queue at once', async () => {
    const slots = new EndpointSlots(1);
    expect(slots.tryAcquire('a')).toBe(true);
    const first = slots.forFirstAttempt('a');
    vi.advanceTimersByTime(100);
    expect(await first).toBe(false);
    // taken for slow: no wait, so a slot released meanwhile is not this attempt's
    const second = slots.forFirstAttempt('a');
    slots.release('a');
    expect(await second).toBe(false);
    expect(slots.held('a')).toBe(0);
    expect(await slots.forFirstAttempt('a')).toBe(true); // a free slot is taken even while slow
    expect(await slots.forFirstAttempt('b')).toBe(true); // other endpoints are not slow
  });

  it('waits again once the endpoint has been slow for a second', async () => {
    const slots = new EndpointSlots(1);
    slots.tryAcquire('a');
    const first = slots.forFirstAttempt('a');
    vi.advanceTimersByTime(100);
    expect(await first).toBe(false);
    vi.advanceTimersByTime(1_000);
    const again = slots.forFirstAttempt('a');
    await Promise.resolve();
    slots.release('a'); // handed to the waiting first attempt
    expect(await again).toBe(true);
    expect(slots.held('a')).toBe(1);
  });
});

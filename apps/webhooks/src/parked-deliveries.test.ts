/**
 * The wake-ups of parked deliveries as pure logic (the jobs are stand-ins recording their
 * promote): one wake-up per freed slot, oldest first and never while a first attempt waits for
 * the slot; a slot freed before the park is offered at once; a wake-up whose job does not come in
 * hands the slot to the next one after its grace, a failed one at once; a closing process wakes
 * all. The same against Redis and BullMQ: parked-deliveries.int.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersEachTest } from '@petrel/testing';
import { EndpointSlots } from './endpoint-slots.js';
import { ParkedDeliveries, type ParkedJob } from './parked-deliveries.js';

fakeTimersEachTest();

/** How long a job is parked for at most. */
const PARK_MS = 10_000;

function harness(limit: number) {
  const slots = new EndpointSlots(limit);
  const parked = new ParkedDeliveries(slots, PARK_MS);
  const woken: string[] = [];
  const job = (id: string, fails = false): ParkedJob => ({
    id,
    promote: () => {
      woken.push(id);
      return fails ? Promise.reject(new Error('not delayed')) : Promise.resolve();
    },
  });
  return { slots, parked, woken, job };
}

describe('ParkedDeliveries', () => {
  it('wakes one parked job per freed slot, oldest first, endpoints apart', () => {
    const { slots, parked, woken, job } = harness(1);
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.tryAcquire('b')).toBe(true);
    parked.park('a', job('a1'), Date.now());
    parked.park('a', job('a2'), Date.now());
    parked.park('b', job('b1'), Date.now());
    expect(woken).toEqual([]); // no slot free: nothing polls, nothing is woken
    slots.release('a');
    expect(woken).toEqual(['a1']);
    parked.arrived('a', 'a1');
    expect(slots.tryAcquire('a')).toBe(true);
    slots.release('a');
    expect(woken).toEqual(['a1', 'a2']);
    expect(parked.count()).toBe(1); // b1 waits for its own endpoint
  });

  it('offers a slot freed before the park at once', () => {
    const { slots, parked, woken, job } = harness(1);
    expect(slots.tryAcquire('a')).toBe(true);
    slots.release('a'); // between the job's failed tryAcquire and its park: nobody to wake yet
    parked.park('a', job('a1'), Date.now());
    expect(woken).toEqual(['a1']);
  });

  it('wakes nobody while a first attempt waits for the slot (it is handed over)', async () => {
    const { slots, parked, woken, job } = harness(1);
    expect(slots.tryAcquire('a')).toBe(true);
    parked.park('a', job('a1'), Date.now());
    const first = slots.acquire('a', 100);
    slots.release('a');
    expect(await first).toBe(true);
    expect(woken).toEqual([]);
    slots.release('a');
    expect(woken).toEqual(['a1']);
  });

  it('counts a pending wake-up against the free slots: one wake-up per slot, not one per release', () => {
    const { slots, parked, woken, job } = harness(2);
    slots.tryAcquire('a');
    slots.tryAcquire('a');
    for (const id of ['a1', 'a2', 'a3']) parked.park('a', job(id), Date.now());
    slots.release('a');
    expect(woken).toEqual(['a1']);
    parked.park('a', job('a4'), Date.now()); // a park re-offers the free slot: already promised to a1
    expect(woken).toEqual(['a1']);
    slots.release('a');
    expect(woken).toEqual(['a1', 'a2']);
  });

  it('gives the slot to the next job when the woken one does not come in within its grace', () => {
    const { slots, parked, woken, job } = harness(1);
    slots.tryAcquire('a');
    parked.park('a', job('a1'), Date.now());
    parked.park('a', job('a2'), Date.now());
    slots.release('a');
    expect(woken).toEqual(['a1']); // fetched by another dispatcher, say
    vi.advanceTimersByTime(999);
    expect(woken).toEqual(['a1']);
    vi.advanceTimersByTime(1);
    expect(woken).toEqual(['a1', 'a2']);
    parked.arrived('a', 'a2'); // answered: no further wake-up
    vi.advanceTimersByTime(10_000);
    expect(woken).toEqual(['a1', 'a2']);
  });

  it('tries the next job at once when a wake-up fails (the job was no longer delayed)', async () => {
    const { slots, parked, woken, job } = harness(1);
    slots.tryAcquire('a');
    parked.park('a', job('a1', true), Date.now());
    parked.park('a', job('a2'), Date.now());
    slots.release('a');
    await vi.waitFor(() => expect(woken).toEqual(['a1', 'a2']));
    expect(parked.count()).toBe(0);
  });

  it('forgets a job that came in by itself (its longest park ran out) and never wakes it', () => {
    const { slots, parked, woken, job } = harness(1);
    slots.tryAcquire('a');
    parked.park('a', job('a1'), Date.now());
    parked.arrived('a', 'a1');
    slots.release('a');
    expect(woken).toEqual([]);
  });

  it('does not wake a job whose park is about to run out (BullMQ brings it back; it may be a retry by then)', () => {
    const { slots, parked, woken, job } = harness(1);
    slots.tryAcquire('a');
    parked.park('a', job('a1'), Date.now());
    vi.advanceTimersByTime(5_000);
    parked.park('a', job('a2'), Date.now());
    vi.advanceTimersByTime(PARK_MS - 1_000 - 5_000); // a1's last second
    slots.release('a');
    expect(woken).toEqual(['a2']);
    expect(parked.count()).toBe(0);
  });

  it('wakes every parked job on close', async () => {
    const { slots, parked, woken, job } = harness(1);
    slots.tryAcquire('a');
    slots.tryAcquire('b');
    parked.park('a', job('a1'), Date.now());
    parked.park('b', job('b1', true), Date.now());
    await parked.wakeAll();
    expect(woken.sort()).toEqual(['a1', 'b1']);
    expect(parked.count()).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { acquire, DestinationGate, initialState, release, type AimdState, type Ticket } from './aimd.js';

const config = { max: 8, recoverAfter: 3 };

function take(state: AimdState): { state: AimdState; ticket: Ticket } {
  const taken = acquire(state);
  if (!taken) throw new Error('no slot');
  return taken;
}

describe('AIMD state', () => {
  it('starts at the ceiling and hands out at most `limit` slots', () => {
    let s = initialState(config);
    expect(s).toEqual({ limit: 8, inFlight: 0, successes: 0, round: 0 });
    for (let i = 0; i < 8; i++) s = take(s).state;
    expect(acquire(s)).toBeNull();
  });

  it('halves on a throttle, once per round, down to 1', () => {
    let s = initialState(config);
    const tickets: Ticket[] = [];
    for (let i = 0; i < 4; i++) {
      const t = take(s);
      s = t.state;
      tickets.push(t.ticket);
    }
    // four sends of one round all get 421: one cut
    for (const t of tickets) s = release(s, t, 'throttle', config);
    expect(s).toMatchObject({ limit: 4, inFlight: 0, round: 1 });
    // each later round cuts again, never below 1
    for (const expected of [2, 1, 1]) {
      const t = take(s);
      s = release(t.state, t.ticket, 'throttle', config);
      expect(s.limit).toBe(expected);
    }
  });

  it('grows by one every `recoverAfter` deliveries, up to the ceiling', () => {
    let s: AimdState = { limit: 1, inFlight: 0, successes: 0, round: 3 };
    const limits: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = take(s);
      s = release(t.state, t.ticket, 'success', config);
      limits.push(s.limit);
    }
    expect(limits.slice(0, 7)).toEqual([1, 1, 2, 2, 2, 3, 3]);
    expect(s.limit).toBe(8);
  });

  it('a throttle resets the count towards the next increase; a neutral result changes nothing', () => {
    let s: AimdState = { limit: 4, inFlight: 0, successes: 2, round: 0 };
    let t = take(s);
    s = release(t.state, t.ticket, 'neutral', config);
    expect(s).toEqual({ limit: 4, inFlight: 0, successes: 2, round: 0 });
    t = take(s);
    s = release(t.state, t.ticket, 'throttle', config);
    expect(s).toEqual({ limit: 2, inFlight: 0, successes: 0, round: 1 });
  });
});

describe('DestinationGate', () => {
  it('makes sends over the limit wait, first come first served, and reports limit changes', async () => {
    const limits: number[] = [];
    const gate = new DestinationGate({ max: 2, recoverAfter: 1 }, (l) => limits.push(l));
    const a = await gate.acquire(1000);
    const b = await gate.acquire(1000);
    expect(a && b).toBeTruthy();
    const order: string[] = [];
    const c = gate.acquire(10_000).then((t) => (order.push('c'), t));
    const d = gate.acquire(10_000).then((t) => (order.push('d'), t));
    expect(gate.waiting).toBe(2);
    gate.release(a!, 'throttle'); // limit 2 → 1, one still in flight: nobody may start
    expect(limits).toEqual([1]);
    expect(gate.waiting).toBe(2);
    gate.release(b!, 'success'); // limit back to 2 (recoverAfter 1), both slots free
    expect(limits).toEqual([1, 2]);
    expect(await c).not.toBeNull();
    expect(await d).not.toBeNull();
    expect(order).toEqual(['c', 'd']);
    expect(gate.state.inFlight).toBe(2);
  });

  it('gives up after the wait bound with null, and forgets the waiter', async () => {
    const gate = new DestinationGate({ max: 1, recoverAfter: 5 });
    const held = await gate.acquire(0);
    expect(held).not.toBeNull();
    expect(await gate.acquire(0)).toBeNull();
    expect(await gate.acquire(20)).toBeNull();
    expect(gate.waiting).toBe(0);
    gate.release(held!, 'neutral');
    expect(gate.state.inFlight).toBe(0);
    expect(await gate.acquire(0)).not.toBeNull();
  });
});

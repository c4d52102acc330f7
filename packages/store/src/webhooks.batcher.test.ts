import { describe, expect, it } from 'vitest';
import { TurnBatcher } from './webhooks.batcher.js';

/** A write that records its batches and finishes only when the test says so. */
function gatedWrite() {
  const batches: [string, number[]][] = [];
  const gates: (() => void)[] = [];
  let called: (() => void) | undefined;
  const write = (key: string, items: number[]) => {
    batches.push([key, [...items]]);
    called?.();
    return new Promise<void>((resolve) => gates.push(resolve));
  };
  /** Resolves at the next call of `write`. */
  const nextCall = () => new Promise<void>((resolve) => (called = resolve));
  return { batches, gates, write, nextCall };
}

describe('TurnBatcher', () => {
  it('writes what one turn added as one batch per key, in order', async () => {
    const w = gatedWrite();
    const b = new TurnBatcher(w.write);
    const first = w.nextCall();
    b.add('a', 1);
    b.add('b', 2);
    b.add('a', 3);
    expect(w.batches).toEqual([]); // not in the same turn
    await first;
    expect(w.batches).toEqual([
      ['a', [1, 3]],
      ['b', [2]],
    ]);
    for (const g of w.gates.splice(0)) g();
    await b.settled();
  });

  it('while a key is being written, its new items wait and go together in the next write', async () => {
    const w = gatedWrite();
    const b = new TurnBatcher(w.write);
    let call = w.nextCall();
    b.add('a', 1);
    await call;
    b.add('a', 2);
    b.add('a', 3);
    // another turn passes: still one write in flight for 'a'
    await new Promise<void>((r) => setImmediate(r));
    expect(w.batches).toEqual([['a', [1]]]);
    call = w.nextCall();
    w.gates.shift()!();
    await call;
    expect(w.batches).toEqual([
      ['a', [1]],
      ['a', [2, 3]],
    ]);
    let settled = false;
    const done = b.settled().then(() => (settled = true));
    await new Promise<void>((r) => setImmediate(r));
    expect(settled).toBe(false); // the second write is still in flight
    w.gates.shift()!();
    await done;
  });

  it('splits a batch at `max`, and a failed write does not stop the next', async () => {
    const batches: number[][] = [];
    let fail = true;
    const b = new TurnBatcher<number>(async (_key, items) => {
      batches.push([...items]);
      if (fail) {
        fail = false;
        throw new Error('redis down');
      }
    }, 2);
    for (const i of [1, 2, 3, 4, 5]) b.add('a', i);
    await b.settled();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });
});

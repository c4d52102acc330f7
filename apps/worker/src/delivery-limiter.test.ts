import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryLimiter, turnOf, type DeliveryTurn } from './delivery-limiter.js';

/** A delivery the test ends: `end()` settles it. */
function held() {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { done, end };
}

describe('deliveryLimiter (the transactional lane’s bound)', () => {
  it('gives the next free slot to a due retry before the first attempts queued ahead of it; each turn first in, first out', async () => {
    const limit = deliveryLimiter(2);
    const started: string[] = [];
    const run = (name: string, turn?: DeliveryTurn) =>
      limit(async () => {
        started.push(name);
      }, turn);
    // two deliveries hold both slots, so everything after them queues
    const a = held();
    const b = held();
    const holding = [
      limit(async () => {
        started.push('a');
        await a.done;
      }),
      limit(async () => {
        started.push('b');
        await b.done;
      }),
    ];
    const queued = [
      run('first-1'),
      run('first-2', 'first'),
      run('retry-1', 'retry'),
      run('first-3'),
      run('retry-2', 'retry'),
    ];
    expect(started).toEqual(['a', 'b']);
    a.end();
    b.end();
    await Promise.all([...holding, ...queued]);
    expect(started).toEqual(['a', 'b', 'retry-1', 'retry-2', 'first-1', 'first-2', 'first-3']);
  });

  it('runs at most its bound at once and all of it while work waits; the queued retries before the queued first attempts, each turn in order (any mix)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        // per delivery: its turn and how many turns of the event loop it takes (I/O: one at least)
        fc.array(fc.record({ retry: fc.boolean(), ticks: fc.integer({ min: 1, max: 3 }) }), {
          minLength: 1,
          maxLength: 60,
        }),
        async (bound, deliveries) => {
          const limit = deliveryLimiter(bound);
          let running = 0;
          let peak = 0;
          const order: { turn: DeliveryTurn; index: number }[] = [];
          await Promise.all(
            deliveries.map(({ retry, ticks }, index) => {
              const turn: DeliveryTurn = retry ? 'retry' : 'first';
              return limit(async () => {
                peak = Math.max(peak, ++running);
                order.push({ turn, index });
                for (let i = 0; i < ticks; i++) await new Promise((resolve) => setImmediate(resolve));
                running--;
              }, turn);
            }),
          );
          expect(peak).toBe(Math.min(bound, deliveries.length));
          expect(order).toHaveLength(deliveries.length);
          // all were queued at once: the first `bound` took the free slots as they came, and of
          // the rest every retry went before every first attempt
          const turns = order.slice(bound).map((o) => o.turn);
          expect(turns).toEqual([...turns].sort((x, y) => (x === y ? 0 : x === 'retry' ? -1 : 1)));
          for (const turn of ['first', 'retry'] as const) {
            const indices = order.filter((o) => o.turn === turn).map((o) => o.index);
            expect(indices).toEqual([...indices].sort((x, y) => x - y));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('settles as the delivery does: a failure rejects its caller and frees the slot for the next', async () => {
    const limit = deliveryLimiter(1);
    const failing = limit(() => Promise.reject(new Error('smtp down')), 'retry');
    const next = limit(async () => 'delivered');
    await expect(failing).rejects.toThrow('smtp down');
    await expect(next).resolves.toBe('delivered');
  });

  it('a retry’s turn once any attempt was made', () => {
    expect(turnOf(0)).toBe('first');
    expect(turnOf(1)).toBe('retry');
    expect(turnOf(3)).toBe('retry');
  });
});

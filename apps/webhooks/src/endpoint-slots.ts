/**
 * The per-endpoint concurrency cap of one dispatcher process: at most `limit` deliveries in
 * flight to one endpoint, so a slow endpoint holds at most `limit` of the process's slots and
 * the others keep flowing. A queued delivery that finds its endpoint full is parked until a slot
 * of its endpoint frees (parked-deliveries.ts: no attempt is counted, and no slot is held).
 *
 * A first attempt made straight from the stream may instead wait a bounded time for a slot
 * (`acquire`): the queued deliveries share the cap, and a first attempt that went to the queue
 * whenever one of them held a slot would make one more queued delivery holding a slot — each
 * job pushing the next first attempt to the queue. A waiting first attempt is handed the next
 * slot released, and `tryAcquire` (the queue worker's) fails while one waits, so first attempts
 * come first and the count never exceeds `limit`.
 *
 * Why per process and not a BullMQ group or a queue per endpoint: groups are BullMQ Pro, and a
 * queue per endpoint means a worker (and a blocking connection) per endpoint in every
 * dispatcher. The cap is then `limit` × dispatcher processes per endpoint, which is what
 * WEBHOOK_ENDPOINT_CONCURRENCY documents.
 */
/** How long a first attempt waits for a slot of its endpoint before it goes to the queue. */
const SLOT_WAIT_MS = 100;
/** How long an endpoint whose slot did not come in SLOT_WAIT_MS gets no further wait. */
const ENDPOINT_SLOW_MS = 1_000;

export class EndpointSlots {
  private readonly inFlight = new Map<string, number>();
  /** Per endpoint, the waiters of `acquire`, first come first served. */
  private readonly waiting = new Map<string, (() => void)[]>();
  /** Endpoints whose slot did not come in time: until when their first attempts do not wait. */
  private readonly slowUntil = new Map<string, number>();
  /** Told when a slot becomes free (released with no first attempt waiting for it). */
  private freed: (endpointId: string) => void = () => undefined;

  constructor(private readonly limit: number) {}

  /** Calls `listener` with the endpoint each time one of its slots becomes free. */
  whenFree(listener: (endpointId: string) => void): void {
    this.freed = listener;
  }

  /** Slots `tryAcquire` could take now: none while a first attempt waits for one. */
  free(endpointId: string): number {
    if (this.waiting.has(endpointId)) return 0;
    return this.limit - (this.inFlight.get(endpointId) ?? 0);
  }

  /** Takes a slot if one is free and nobody waits for one of this endpoint. */
  tryAcquire(endpointId: string): boolean {
    if (this.waiting.has(endpointId)) return false;
    const n = this.inFlight.get(endpointId) ?? 0;
    if (n >= this.limit) return false;
    this.inFlight.set(endpointId, n + 1);
    return true;
  }

  /** Takes a slot, waiting at most `waitMs` for one; false (and no slot) when none came in time. */
  acquire(endpointId: string, waitMs: number): Promise<boolean> {
    if (this.tryAcquire(endpointId)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let queue = this.waiting.get(endpointId);
      if (!queue) this.waiting.set(endpointId, (queue = []));
      const granted = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      queue.push(granted);
      const timer = setTimeout(() => {
        const q = this.waiting.get(endpointId);
        const at = q?.indexOf(granted) ?? -1;
        if (at >= 0) q!.splice(at, 1);
        if (q && q.length === 0) this.waiting.delete(endpointId);
        resolve(false);
      }, waitMs);
    });
  }

  /**
   * A slot for a first attempt: at once, or after waiting at most SLOT_WAIT_MS for one — a
   * 200-answering endpoint frees one within a round trip. An endpoint whose wait ran out is taken
   * for slow and its first attempts go to the queue without waiting for ENDPOINT_SLOW_MS, so a
   * slow endpoint holds a batch (and the other endpoints' deliveries behind it) at most
   * SLOT_WAIT_MS in every ENDPOINT_SLOW_MS.
   */
  async forFirstAttempt(endpointId: string): Promise<boolean> {
    if (this.tryAcquire(endpointId)) return true;
    const slowUntil = this.slowUntil.get(endpointId);
    if (slowUntil !== undefined) {
      if (Date.now() < slowUntil) return false;
      this.slowUntil.delete(endpointId);
    }
    if (await this.acquire(endpointId, SLOT_WAIT_MS)) return true;
    this.slowUntil.set(endpointId, Date.now() + ENDPOINT_SLOW_MS);
    return false;
  }

  release(endpointId: string): void {
    const queue = this.waiting.get(endpointId);
    if (queue) {
      // the slot passes to the first waiter: the count stays as it is
      const next = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(endpointId);
      next();
      return;
    }
    const n = (this.inFlight.get(endpointId) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, n);
    this.freed(endpointId);
  }

  /** Deliveries in flight to the endpoint (for tests and metrics). */
  held(endpointId: string): number {
    return this.inFlight.get(endpointId) ?? 0;
  }
}

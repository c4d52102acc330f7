/**
 * The per-endpoint concurrency cap of one dispatcher process: at most `limit` deliveries in
 * flight to one endpoint, so a slow endpoint holds at most `limit` of the process's slots and
 * the others keep flowing. A delivery that finds its endpoint full goes back to the delayed set
 * for a moment (its job is not an attempt) instead of waiting in a slot.
 *
 * Why per process and not a BullMQ group or a queue per endpoint: groups are BullMQ Pro, and a
 * queue per endpoint means a worker (and a blocking connection) per endpoint in every
 * dispatcher. The cap is then `limit` × dispatcher processes per endpoint, which is what
 * WEBHOOK_ENDPOINT_CONCURRENCY documents.
 */
export class EndpointSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly limit: number) {}

  tryAcquire(endpointId: string): boolean {
    const n = this.inFlight.get(endpointId) ?? 0;
    if (n >= this.limit) return false;
    this.inFlight.set(endpointId, n + 1);
    return true;
  }

  release(endpointId: string): void {
    const n = (this.inFlight.get(endpointId) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, n);
  }
}

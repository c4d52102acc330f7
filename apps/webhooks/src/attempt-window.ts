/**
 * The window of one dispatcher's first attempts: at most `size` requests in flight (the stream
 * consumer waits for room before it starts the next, so a backlog is read no faster than it is
 * delivered), and the attempts not recorded yet — a place is given back when the response is in,
 * not when the attempt is recorded: the window bounds requests in flight, and the record rides
 * the team's next batched write meanwhile.
 *
 * Endpoints come from the batch's own read (`EndpointSnapshot`); when a delivery takes its place
 * more than ENDPOINTS_FRESH_MS after it they are read again, so a disable, a deletion or a rotated
 * secret applies within that bound, and an endpoint this process just disabled gets no further
 * direct attempt.
 */
import type { ReadyDelivery, WebhookEndpoint, WebhooksPort } from '@petrel/core';

/** How old a batch's read of the endpoints may be when one of its deliveries starts. */
const ENDPOINTS_FRESH_MS = 250;

/** A batch's endpoints by id, as last read. */
export class EndpointSnapshot {
  private at: number;
  private byId: Map<string, WebhookEndpoint>;

  constructor(
    private readonly teamId: string,
    private readonly webhooks: Pick<WebhooksPort, 'all'>,
    ready: readonly ReadyDelivery[],
    readAtMs: number,
  ) {
    this.at = readAtMs;
    this.byId = new Map(ready.map((d) => [d.endpoint.id, d.endpoint]));
  }

  stale(): boolean {
    return Date.now() - this.at > ENDPOINTS_FRESH_MS;
  }

  async refresh(): Promise<void> {
    this.at = Date.now();
    this.byId = new Map((await this.webhooks.all(this.teamId)).map((w) => [w.id, w]));
  }

  get(endpointId: string): WebhookEndpoint | undefined {
    return this.byId.get(endpointId);
  }

  /** An attempt of this process disabled the endpoint: the batch's later deliveries are queued. */
  disabled(endpoint: WebhookEndpoint): void {
    this.byId.set(endpoint.id, { ...endpoint, status: 'disabled' });
  }
}

export class AttemptWindow {
  /** Requests in flight (the window); attempts not yet recorded. */
  private running = 0;
  private recording = 0;
  private readonly room: (() => void)[] = [];
  private readonly drained: (() => void)[] = [];

  constructor(readonly size: number) {}

  /**
   * Takes a place in the window once one is free, reading the endpoints again first when the
   * snapshot is stale. The check and the taking are one synchronous step after the last await:
   * two batches being fed at once (the next is read while this one's last deliveries start)
   * must not both see the same free place.
   */
  async take(endpoints: EndpointSnapshot): Promise<void> {
    for (;;) {
      while (this.running >= this.size) await new Promise<void>((r) => this.room.push(r));
      if (endpoints.stale()) await endpoints.refresh();
      if (this.running < this.size) break;
    }
    this.running += 1;
  }

  /** Gives a place back (its request is answered, or it was never made). */
  give(): void {
    this.running -= 1;
    this.room.shift()?.();
  }

  /** An attempt started: it is waited for by `recorded` until `done`. */
  begin(): void {
    this.recording += 1;
  }

  done(): void {
    this.recording -= 1;
    if (this.recording === 0) for (const r of this.drained.splice(0)) r();
  }

  /** Resolves once every attempt begun is done. */
  async recorded(): Promise<void> {
    while (this.recording > 0) await new Promise<void>((r) => this.drained.push(r));
  }
}

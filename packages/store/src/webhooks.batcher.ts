/**
 * Gathers small writes per key (a team: its keys share one slot) and hands them over in batches,
 * so a burst of webhook deliveries costs one command per batch instead of one per delivery (each
 * command is a socket write on the dispatcher's side and a command dispatch on Redis's). The
 * first item of a key is written in the next turn of the event loop, together with whatever
 * else arrived in that turn; while a key's write is in flight, new items wait and go together in
 * the next one — so batches grow with the load and an item waits at most one round trip.
 */
export class TurnBatcher<T> {
  private readonly waiting = new Map<string, T[]>();
  private readonly busy = new Set<string>();
  private scheduled = false;
  private readonly idle: (() => void)[] = [];

  /** `write` handles its own errors (it is never retried); `max` bounds one batch. */
  constructor(
    private readonly write: (key: string, items: T[]) => Promise<void>,
    private readonly max = Number.POSITIVE_INFINITY,
  ) {}

  add(key: string, item: T): void {
    const list = this.waiting.get(key);
    if (list) list.push(item);
    else this.waiting.set(key, [item]);
    if (!this.busy.has(key)) this.schedule();
  }

  /** Resolves once nothing waits and no write is in flight. */
  async settled(): Promise<void> {
    while (!this.isIdle()) await new Promise<void>((r) => this.idle.push(r));
  }

  private isIdle(): boolean {
    return this.waiting.size === 0 && this.busy.size === 0 && !this.scheduled;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const key of [...this.waiting.keys()]) if (!this.busy.has(key)) this.run(key);
      this.notify();
    });
  }

  private run(key: string): void {
    const items = this.waiting.get(key)!;
    const batch = items.length > this.max ? items.splice(0, this.max) : items;
    if (batch === items) this.waiting.delete(key);
    this.busy.add(key);
    void this.write(key, batch)
      .catch(() => undefined)
      .finally(() => {
        this.busy.delete(key);
        if (this.waiting.has(key)) this.schedule();
        this.notify();
      });
  }

  private notify(): void {
    if (this.isIdle()) for (const r of this.idle.splice(0)) r();
  }
}

// A list that fills as things arrive (HTTP requests, SMTP messages) and lets a test wait until it
// holds enough of them.

export class Arrivals<T> {
  /** Everything that arrived, in order (the same array for the life of the object). */
  readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();

  /** `source` and `noun` name what is awaited in the timeout error ("SMTP sink: 3 of 5 messages …"). */
  constructor(
    private readonly source: string,
    private readonly noun: string,
  ) {}

  push(item: T): void {
    this.items.push(item);
    for (const wake of this.waiters) wake();
  }

  /** Resolves with a copy of the items once at least `count` arrived. */
  waitFor(count: number, timeoutMs = 10_000): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.items.length < count) return;
        cleanup();
        resolve(this.items.slice());
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`${this.source}: ${this.items.length} of ${count} ${this.noun} after ${timeoutMs} ms`),
        );
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  clear(): void {
    this.items.length = 0;
  }
}

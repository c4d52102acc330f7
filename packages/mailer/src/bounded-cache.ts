/**
 * A small LRU map bounded by entry count and by the total length of its string keys and values,
 * for results that are pure functions of a string (generated text, encoded bodies). A broadcast
 * renders the same html for thousands of recipients; this keeps the work to once per html.
 */
export class BoundedCache<V extends string | { body: string }> {
  private readonly map = new Map<string, V>();
  private size = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  /** Keys longer than this are never cached: one huge body must not evict everything else. */
  get maxKeyLength(): number {
    return this.maxChars >> 4;
  }

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      // re-insert to mark as most recently used
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (key.length > this.maxKeyLength || this.map.has(key)) return;
    this.map.set(key, value);
    this.size += cost(key, value);
    while (this.map.size > this.maxEntries || this.size > this.maxChars) {
      const oldest = this.map.entries().next();
      if (oldest.done) break;
      this.map.delete(oldest.value[0]);
      this.size -= cost(oldest.value[0], oldest.value[1]);
    }
  }

  clear(): void {
    this.map.clear();
    this.size = 0;
  }
}

function cost(key: string, value: string | { body: string }): number {
  return key.length + (typeof value === 'string' ? value.length : value.body.length);
}

/**
 * Brute-force brake on AUTH, per remote address: the first `maxFailures - 1` failures are plain
 * 535 replies; the `maxFailures`-th closes the connection (421), and from then on every attempt
 * from that address waits first — 1 s, doubling per further failure, at most 30 s — and a failure
 * closes the connection again. A success forgets the address; so does a quiet `forgetAfterMs`.
 * Per process and in memory: an attacker spread over several SMTP processes is slowed in each.
 */
export interface AuthThrottleOptions {
  maxFailures: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  forgetAfterMs?: number;
  /** Addresses remembered at most (the oldest are forgotten first). */
  maxEntries?: number;
  /** The failures' clock (tests move it); default `Date`. */
  clock?: { now(): number };
}

interface Entry {
  failures: number;
  lastMs: number;
}

export class AuthThrottle {
  private readonly entries = new Map<string, Entry>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly forgetAfterMs: number;
  private readonly maxEntries: number;
  private readonly clock: { now(): number };

  constructor(private readonly opts: AuthThrottleOptions) {
    this.baseDelayMs = opts.baseDelayMs ?? 1_000;
    this.maxDelayMs = opts.maxDelayMs ?? 30_000;
    this.forgetAfterMs = opts.forgetAfterMs ?? 15 * 60_000;
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.clock = opts.clock ?? Date;
  }

  /** How long an attempt from `ip` must wait before it is checked (0: not throttled). */
  delayMs(ip: string): number {
    const over = this.failures(ip) - this.opts.maxFailures;
    return over < 0 ? 0 : Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** over);
  }

  /** Records a failure; true when the connection must be closed. */
  fail(ip: string): boolean {
    const failures = this.failures(ip) + 1;
    this.entries.delete(ip); // re-insert: the map's order is the eviction order
    this.entries.set(ip, { failures, lastMs: this.clock.now() });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return failures >= this.opts.maxFailures;
  }

  succeed(ip: string): void {
    this.entries.delete(ip);
  }

  private failures(ip: string): number {
    const entry = this.entries.get(ip);
    if (!entry) return 0;
    if (this.clock.now() - entry.lastMs > this.forgetAfterMs) {
      this.entries.delete(ip);
      return 0;
    }
    return entry.failures;
  }
}

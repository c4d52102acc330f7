/**
 * Sending IP pools for direct delivery: which local address a connection to an MX is opened from
 * (nodemailer's `localAddress`), and the warm-up cap of that address (packages/core
 * sending-pools.ts has the rules; the counters are shared by every worker through the
 * {@link WarmupCounter} port, Redis in production).
 *
 * Per domain delivery: the email's pool (its from-domain's, else its team's, else `default`;
 * none — the machine's own address), then the pool's addresses in turn (round robin, so the
 * load spreads) until one has room left today for the destination's provider. When none has, the
 * delivery is deferred until the earliest of their next days: a retryable delay, never a bounce.
 */
import {
  DEFAULT_WARMUP_SCHEDULE,
  fromDomain,
  poolFor,
  providerOf,
  warmupCap,
  type SendingPool,
  type WarmupCounter,
} from '@petrel/core';

/** Metrics hooks; must not throw. */
export interface PoolObserver {
  /** An address of the pool was chosen for a delivery (its warm-up cap today, null: none). */
  used(pool: string, address: string, cap: number | null): void;
  /** Every address of the pool was at its cap for the provider: the delivery was deferred. */
  warmupDeferred(pool: string, provider: string): void;
}

export interface SourcePoolsOptions {
  pools: readonly SendingPool[];
  /** Daily caps by warm-up day; default {@link DEFAULT_WARMUP_SCHEDULE}. Empty: no warm-up. */
  schedule?: readonly number[];
  /** Length of a warm-up day: 24 h (the test-only WARMUP_DAY_S shortens it). */
  dayMs?: number;
  counter: WarmupCounter;
  /** The clock warm-up days are counted by; default `Date`. */
  clock?: { now(): number };
  observer?: PoolObserver;
}

export type SourcePick =
  /** No pool applies: the connection goes from the machine's default address. */
  | { kind: 'default' }
  | { kind: 'address'; pool: string; address: string }
  | { kind: 'warmup'; pool: string; provider: string; retryAfterMs: number; detail: string };

export interface SourcePools {
  /** `origin` is the message's (its team and From header). */
  pick(origin: { teamId?: string; from?: string }, mxHost: string): Promise<SourcePick>;
}

const DAY_MS = 86_400_000;

export function createSourcePools(opts: SourcePoolsOptions): SourcePools {
  const schedule = opts.schedule ?? DEFAULT_WARMUP_SCHEDULE;
  const dayMs = opts.dayMs ?? DAY_MS;
  const clock = opts.clock ?? Date;
  const next = new Map<string, number>();
  // the first use of an address never changes once written: read it once per process
  const since = new Map<string, Promise<number>>();

  function firstUse(address: string): Promise<number> {
    let known = since.get(address);
    if (!known) {
      known = opts.counter.since(address, clock.now());
      known.catch(() => since.delete(address));
      since.set(address, known);
    }
    return known;
  }

  return {
    async pick(origin, mxHost) {
      const domain = origin.from ? (fromDomain(origin.from) ?? undefined) : undefined;
      const pool = poolFor(opts.pools, { teamId: origin.teamId, domain });
      if (!pool || pool.addresses.length === 0) return { kind: 'default' };
      const provider = providerOf(mxHost);
      const start = next.get(pool.name) ?? 0;
      next.set(pool.name, (start + 1) % pool.addresses.length);
      let earliestMs = Infinity;
      let capToday = 0;
      for (let i = 0; i < pool.addresses.length; i++) {
        const address = pool.addresses[(start + i) % pool.addresses.length]!;
        const t = clock.now();
        const first = await firstUse(address);
        const day = Math.max(0, Math.floor((t - first) / dayMs));
        const cap = schedule.length === 0 ? null : warmupCap(schedule, day);
        if (cap === null || (await opts.counter.take(address, provider, day, cap, 2 * dayMs))) {
          opts.observer?.used(pool.name, address, cap);
          return { kind: 'address', pool: pool.name, address };
        }
        capToday = cap;
        earliestMs = Math.min(earliestMs, first + (day + 1) * dayMs - t);
      }
      opts.observer?.warmupDeferred(pool.name, provider);
      return {
        kind: 'warmup',
        pool: pool.name,
        provider,
        retryAfterMs: Math.max(1_000, Math.ceil(earliestMs)),
        detail: `warm-up: every address of sending pool ${pool.name} reached today's cap (${capToday}) for ${provider}`,
      };
    },
  };
}

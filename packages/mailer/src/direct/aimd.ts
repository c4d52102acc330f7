/**
 * The adaptive concurrency limit of one destination host: additive increase, multiplicative
 * decrease (AIMD, as TCP's congestion control and Postfix's destination concurrency feedback).
 * A receiving server says "too many" with 421 (RFC 5321 section 4.2.2: closing the channel) or
 * a 4.7.x reply (RFC 3463: a policy — rate or connection limits), or by refusing connections:
 * the limit halves (floor 1). Every `recoverAfter` deliveries it grew back by one, up to the
 * ceiling (the pool's size).
 *
 * One decrease per round: the sends already in flight when the limit was cut were started
 * under the old limit, so their throttle replies say nothing new — counting them too would
 * halve the limit once per connection for a single event. A {@link Ticket} remembers the round
 * it was taken in; only a throttle from the current round cuts.
 *
 * Pure: {@link AimdState} is a value and {@link acquire}/{@link release} return the next one.
 * {@link DestinationGate} adds the waiting (a FIFO of sends waiting for a slot, bounded).
 */

export interface AimdConfig {
  /** Ceiling and starting limit. */
  max: number;
  /** Deliveries after which the limit grows by one. */
  recoverAfter: number;
}

export interface AimdState {
  limit: number;
  inFlight: number;
  /** Deliveries since the limit last changed. */
  successes: number;
  /** Incremented at every decrease. */
  round: number;
}

export interface Ticket {
  round: number;
}

/** What one send told about the destination's capacity. */
export type Feedback = 'success' | 'throttle' | 'neutral';

export function initialState(config: AimdConfig): AimdState {
  return { limit: Math.max(1, Math.floor(config.max)), inFlight: 0, successes: 0, round: 0 };
}

/** Takes a slot when one is free. */
export function acquire(state: AimdState): { state: AimdState; ticket: Ticket } | null {
  if (state.inFlight >= state.limit) return null;
  return { state: { ...state, inFlight: state.inFlight + 1 }, ticket: { round: state.round } };
}

/** Gives the slot back with what the send said. */
export function release(state: AimdState, ticket: Ticket, feedback: Feedback, config: AimdConfig): AimdState {
  const next = { ...state, inFlight: Math.max(0, state.inFlight - 1) };
  if (feedback === 'throttle') {
    if (ticket.round !== state.round) return next;
    return { ...next, limit: Math.max(1, Math.floor(state.limit / 2)), successes: 0, round: state.round + 1 };
  }
  if (feedback === 'success' && state.limit < config.max) {
    const successes = state.successes + 1;
    if (successes >= config.recoverAfter) return { ...next, limit: state.limit + 1, successes: 0 };
    return { ...next, successes };
  }
  return next;
}

/**
 * The slots of one destination, with the sends waiting for one (first come, first served). A
 * send that waited `waitMs` without getting a slot gets `null`: the caller defers it, so a
 * throttled destination never holds a worker's job for long, and nothing polls.
 */
export class DestinationGate {
  #state: AimdState;
  readonly #waiters: { grant: (ticket: Ticket | null) => void; timer?: NodeJS.Timeout }[] = [];

  constructor(
    readonly config: AimdConfig,
    /** Called after the limit changed. Must not throw. */
    private readonly onLimit: (limit: number) => void = () => undefined,
  ) {
    this.#state = initialState(config);
  }

  get state(): Readonly<AimdState> {
    return this.#state;
  }

  /** Waiting sends. */
  get waiting(): number {
    return this.#waiters.length;
  }

  acquire(waitMs: number): Promise<Ticket | null> {
    if (this.#waiters.length === 0) {
      const taken = acquire(this.#state);
      if (taken) {
        this.#state = taken.state;
        return Promise.resolve(taken.ticket);
      }
    }
    if (waitMs <= 0) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: { grant: (ticket: Ticket | null) => void; timer?: NodeJS.Timeout } = { grant: resolve };
      waiter.timer = setTimeout(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at !== -1) this.#waiters.splice(at, 1);
        resolve(null);
      }, waitMs);
      this.#waiters.push(waiter);
    });
  }

  release(ticket: Ticket, feedback: Feedback): void {
    const before = this.#state.limit;
    this.#state = release(this.#state, ticket, feedback, this.config);
    if (this.#state.limit !== before) this.onLimit(this.#state.limit);
    this.#wake();
  }

  #wake(): void {
    while (this.#waiters.length > 0) {
      const taken = acquire(this.#state);
      if (!taken) return;
      this.#state = taken.state;
      const waiter = this.#waiters.shift()!;
      clearTimeout(waiter.timer);
      waiter.grant(taken.ticket);
    }
  }
}

/**
 * The deadlines of the webhook attempts: one timer for all of them. Every attempt of a sender
 * has the same timeout, so their deadlines fall in the order the attempts started: the attempts
 * in flight wait in that order (a list each one leaves when it is over) and a single timer, armed
 * for the first of them, expires whatever is due. `AbortSignal.timeout` per attempt did the same
 * with a timer, an `AbortController` and an `EventTarget` listener each: the webhooks bench
 * measured ~15–20 µs of the dispatcher's CPU per delivery in them.
 *
 * A deadline is an `EventEmitter` emitting `abort`, which undici's `request` takes for its
 * `signal` (documented as "AbortSignal | EventEmitter"). None expires before its time: a timer
 * that fires early is armed again for the rest.
 */
import { EventEmitter } from 'node:events';
import { systemClock, type Clock } from '@petrel/core';

/** One attempt's deadline, passed to undici as its `signal`. */
export class Deadline extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  prev: Deadline | undefined;
  next: Deadline | undefined;

  constructor(
    readonly at: number,
    private readonly list: AttemptDeadlines,
  ) {
    super();
  }

  /** The attempt is over (answered or failed): it is never aborted. */
  end(): void {
    this.list.remove(this);
  }
}

export class AttemptDeadlines {
  private head: Deadline | undefined;
  private tail: Deadline | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly timeoutMs: number,
    /** Deadlines are durations: a monotonic clock, which wall-clock steps do not move. */
    private readonly clock: Pick<Clock, 'monotonicMs'> = systemClock,
  ) {}

  /** A deadline `timeoutMs` from now; call its `end()` once the attempt is over. */
  start(): Deadline {
    const d = new Deadline(this.clock.monotonicMs() + this.timeoutMs, this);
    d.prev = this.tail;
    if (this.tail) this.tail.next = d;
    else this.head = d;
    this.tail = d;
    this.arm();
    return d;
  }

  /** Stops the timer (deadlines not yet due never expire). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Takes a deadline out of the list (ended, or expired); a second call does nothing. */
  remove(d: Deadline): void {
    if (d.prev) d.prev.next = d.next;
    else if (this.head === d) this.head = d.next;
    else return; // not in the list any more
    if (d.next) d.next.prev = d.prev;
    else this.tail = d.prev;
    d.prev = d.next = undefined;
  }

  private arm(): void {
    if (this.timer || !this.head) return;
    this.timer = setTimeout(
      () => this.fire(),
      Math.max(1, Math.ceil(this.head.at - this.clock.monotonicMs())),
    );
    // the requests in flight hold the process, not their deadlines (as AbortSignal.timeout's)
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.clock.monotonicMs();
    while (this.head && this.head.at <= now) {
      const d = this.head;
      this.remove(d);
      d.aborted = true;
      d.reason = new Error(`timed out after ${this.timeoutMs} ms`);
      d.emit('abort');
    }
    this.arm();
  }
}

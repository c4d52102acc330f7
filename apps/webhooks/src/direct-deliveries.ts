/**
 * First attempts straight from the stream. A stream batch's dispatch hands back the deliveries
 * whose entries it just wrote (`ReadyDelivery`: endpoint and entry in hand); each is attempted
 * here at once (`deliverDispatched`, core) instead of going through a queue job that would read
 * both back: no job is added, fetched or finished for a delivery that succeeds the first time.
 * A job exists only for what needs one — a retry (a delayed job), a delivery whose endpoint is at
 * its per-process cap (the worker waits for a slot), one whose endpoint was disabled or deleted
 * since the batch was read (the job's read marks it failed).
 *
 * At-least-once rests on the stream: an entry is acknowledged only once every delivery of its
 * event was attempted and recorded, or queued. A dispatcher that dies before leaves the entry
 * pending in the consumer group; another claims it after WEBHOOK_CLAIM_IDLE_MS and the dispatch
 * finds the entries still `pending`/`attempting` — it enqueues those (same job id, same message
 * id) and skips the finished ones. While this process holds an entry, it keeps the entry's idle
 * time fresh (`touch`, from the stream consumer) and never claims it itself, so a slow delivery is
 * not taken for a dead one.
 *
 * Concurrency: at most `concurrency` first attempts in flight (attempt-window.ts), and the
 * per-endpoint cap shared with the queued deliveries: a first attempt that finds its endpoint
 * full waits briefly for one of its slots (`EndpointSlots.forFirstAttempt`) before it falls back
 * to the queue — otherwise every queued delivery holding a slot would push one more first attempt
 * into the queue. Which delivery may go and when an entry is settled are core's rules
 * (`mayAttemptDirectly`, `tallyStreamEntries`).
 */
import { mayAttemptDirectly, tallyStreamEntries, type ReadyDelivery, type WebhooksPort } from '@petrel/core';
import type { StreamEvent } from '@petrel/store';
import { log } from '@petrel/observability';
import { AttemptWindow, EndpointSnapshot } from './attempt-window.js';
import { FirstAttempts, type FirstAttemptDeps } from './first-attempt.js';
import { HeldEntries } from './held-entries.js';

export interface DirectDeliveriesDeps extends FirstAttemptDeps {
  webhooks: Pick<WebhooksPort, 'all'>;
  /** First attempts in flight at once in this process. */
  concurrency: number;
  /** Acknowledges stream entries whose deliveries are all recorded or queued. */
  ack(teamId: string, entryIds: string[]): Promise<void>;
}

export class DirectDeliveries {
  private readonly window: AttemptWindow;
  private readonly attempts: FirstAttempts;
  /** Batches whose deliveries are still being started or queued. */
  private readonly feeding = new Set<Promise<void>>();
  private readonly held: HeldEntries;

  constructor(private readonly deps: DirectDeliveriesDeps) {
    this.window = new AttemptWindow(deps.concurrency);
    this.attempts = new FirstAttempts(deps, this.window);
    this.held = new HeldEntries((teamId, ids) => deps.ack(teamId, ids));
  }

  /** True while this process holds the stream entry (read, not yet acknowledged or given up). */
  holds(teamId: string, entryId: string): boolean {
    return this.held.holds(teamId, entryId);
  }

  /** Entries of the team held since before `beforeMs`; their time is reset to now (they are touched). */
  heldSince(teamId: string, beforeMs: number): string[] {
    return this.held.heldSince(teamId, beforeMs);
  }

  /**
   * Takes a batch: attempts its ready deliveries (waiting for room when `concurrency` are in
   * flight), enqueues those that cannot go now, and acknowledges each entry once all of its
   * deliveries are recorded or queued. Resolves once at most `concurrency` of them are left to
   * start, so the caller reads and dispatches the next batch while this one's last deliveries
   * start — the in-flight window never runs dry between two batches.
   */
  take(
    teamId: string,
    entries: readonly StreamEvent[],
    ready: readonly ReadyDelivery[],
    readAtMs: number,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let answered = false;
      const nearlyFed = (): void => {
        if (answered) return;
        answered = true;
        resolve();
      };
      const feeding = this.feed(teamId, entries, ready, readAtMs, nearlyFed).then(
        nearlyFed,
        (err: unknown) => {
          if (!answered) {
            answered = true;
            reject(err);
          } else
            log().error(
              { err, teamId },
              'webhook deliveries of a stream batch given up; they will be claimed again',
            );
        },
      );
      this.feeding.add(feeding);
      void feeding.finally(() => this.feeding.delete(feeding));
    });
  }

  private async feed(
    teamId: string,
    entries: readonly StreamEvent[],
    ready: readonly ReadyDelivery[],
    readAtMs: number,
    nearlyFed: () => void,
  ): Promise<void> {
    this.held.hold(teamId, entries, readAtMs);
    const finish = tallyStreamEntries(entries, ready, (id, acked) => this.held.settle(teamId, id, acked));
    const snap = new EndpointSnapshot(teamId, this.deps.webhooks, ready, readAtMs);
    const queued: ReadyDelivery[] = [];
    let next = 0;
    try {
      for (; next < ready.length; next++) {
        const d = ready[next]!;
        if (ready.length - next <= this.deps.concurrency) nearlyFed();
        await this.window.take(snap);
        const endpoint = snap.get(d.endpoint.id);
        if (!mayAttemptDirectly(endpoint) || !(await this.deps.slots.forFirstAttempt(endpoint.id))) {
          this.window.give();
          queued.push(d);
          continue;
        }
        this.attempts.start({ ...d, endpoint }, snap, (ok) => finish(d.entry.id, ok));
      }
      if (queued.length)
        await this.deps.queue.enqueue(
          queued.map((d) => ({ teamId, endpointId: d.endpoint.id, eventId: d.entry.id })),
        );
    } catch (err) {
      // neither attempted nor queued: their entries are given up (claimed again later)
      for (const d of [...queued, ...ready.slice(next)]) finish(d.entry.id, false);
      throw err;
    }
    for (const d of queued) finish(d.entry.id, true);
  }

  /** Resolves once every batch taken was fed, every attempt recorded and every acknowledgement sent. */
  async drain(): Promise<void> {
    await Promise.all(this.feeding);
    await this.window.recorded();
    await this.held.settled();
  }
}

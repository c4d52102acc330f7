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
 * Concurrency: at most `concurrency` first attempts in flight (the stream consumer waits for room
 * before it starts the next, so a backlog is read no faster than it is delivered), and the
 * per-endpoint cap shared with the queued deliveries: a first attempt that finds its endpoint
 * full waits briefly for one of its slots (handed over before the queue worker may take it)
 * before it falls back to the queue — otherwise every queued delivery holding a slot would push
 * one more first attempt into the queue. Endpoints come from the batch's own read;
 * when a delivery starts more than ENDPOINTS_FRESH_MS after it they are read again, so a disable,
 * a deletion or a rotated secret applies within that bound, and an endpoint this process just
 * disabled gets no further direct attempt.
 */
import {
  deliverDispatched,
  type DeliveryPolicy,
  type ReadyDelivery,
  type WebhookDeliveryQueuePort,
  type WebhookEndpoint,
  type WebhookEventLogPort,
  type WebhookSender,
  type WebhooksPort,
} from '@petrel/core';
import { TurnBatcher, type StreamEvent } from '@petrel/store';
import { log } from '@petrel/observability';
import type { EndpointSlots } from './endpoint-slots.js';
import { observeDelivery } from './delivery-metrics.js';

/** How old a batch's read of the endpoints may be when one of its deliveries starts. */
const ENDPOINTS_FRESH_MS = 250;
/** How long a first attempt waits for a slot of its endpoint before it goes to the queue. */
const SLOT_WAIT_MS = 100;
/** How long an endpoint whose slot did not come in SLOT_WAIT_MS gets no further wait. */
const ENDPOINT_SLOW_MS = 1_000;
/** Most entries acknowledged by one XACK. */
const ACK_BATCH = 1_000;

export interface DirectDeliveriesDeps {
  webhooks: Pick<WebhooksPort, 'all'>;
  log: Pick<WebhookEventLogPort, 'recordAttempt'>;
  sender: WebhookSender;
  queue: WebhookDeliveryQueuePort;
  policy: DeliveryPolicy;
  /** The per-endpoint cap, shared with the delivery worker. */
  slots: EndpointSlots;
  /** First attempts in flight at once in this process. */
  concurrency: number;
  /** Acknowledges stream entries whose deliveries are all recorded or queued. */
  ack(teamId: string, entryIds: string[]): Promise<void>;
}

interface Snapshot {
  at: number;
  byId: Map<string, WebhookEndpoint>;
}

export class DirectDeliveries {
  /** Requests in flight (the window); attempts not yet recorded. */
  private running = 0;
  private recording = 0;
  private readonly room: (() => void)[] = [];
  private readonly drained: (() => void)[] = [];
  /** Batches whose deliveries are still being started or queued. */
  private readonly feeding = new Set<Promise<void>>();
  /** Stream entries read and not acknowledged yet, per team: entry id → since when (ms). */
  private readonly held = new Map<string, Map<string, number>>();
  /** Acknowledgements, gathered per team (one XACK per batch). */
  private readonly acks: TurnBatcher<string>;
  private readonly clock = { now: () => Date.now() };
  /** Endpoints whose slot did not come in time: until when their first attempts do not wait. */
  private readonly slowUntil = new Map<string, number>();

  constructor(private readonly deps: DirectDeliveriesDeps) {
    this.acks = new TurnBatcher(async (teamId, ids) => {
      try {
        await deps.ack(teamId, ids);
      } catch (err) {
        log().error({ err, teamId }, 'webhook stream entries not acknowledged; they will be claimed again');
      } finally {
        const held = this.held.get(teamId);
        for (const id of ids) held?.delete(id);
      }
    }, ACK_BATCH);
  }

  /** True while this process holds the stream entry (read, not yet acknowledged or given up). */
  holds(teamId: string, entryId: string): boolean {
    return this.held.get(teamId)?.has(entryId) ?? false;
  }

  /** Entries of the team held since before `beforeMs`; their time is reset to now (they are touched). */
  heldSince(teamId: string, beforeMs: number): string[] {
    const team = this.held.get(teamId);
    if (!team) return [];
    const out: string[] = [];
    const now = Date.now();
    for (const [id, since] of team)
      if (since < beforeMs) {
        out.push(id);
        team.set(id, now);
      }
    return out;
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
    let team = this.held.get(teamId);
    if (!team) this.held.set(teamId, (team = new Map()));
    for (const e of entries) team.set(e.entryId, readAtMs);

    // the stream entries that carry each event (one, unless the event was written twice)
    const carriers = new Map<string, string[]>();
    for (const e of entries) {
      if (!e.event) continue;
      const list = carriers.get(e.event.id);
      if (list) list.push(e.entryId);
      else carriers.set(e.event.id, [e.entryId]);
    }
    const open = new Map<string, { left: number; failed: boolean }>();
    for (const d of ready)
      for (const id of carriers.get(d.entry.id) ?? []) {
        const t = open.get(id);
        if (t) t.left += 1;
        else open.set(id, { left: 1, failed: false });
      }
    const finish = (d: ReadyDelivery, ok: boolean): void => {
      for (const id of carriers.get(d.entry.id) ?? []) {
        const t = open.get(id)!;
        t.left -= 1;
        if (!ok) t.failed = true;
        if (t.left > 0) continue;
        // given up: left pending in the group, claimed again after WEBHOOK_CLAIM_IDLE_MS
        if (t.failed) this.held.get(teamId)?.delete(id);
        else this.ackLater(teamId, id);
      }
    };
    for (const e of entries) if (!open.has(e.entryId)) this.ackLater(teamId, e.entryId);

    const snap: Snapshot = { at: readAtMs, byId: new Map(ready.map((d) => [d.endpoint.id, d.endpoint])) };
    const queued: ReadyDelivery[] = [];
    let next = 0;
    try {
      for (; next < ready.length; next++) {
        const d = ready[next]!;
        if (ready.length - next <= this.deps.concurrency) nearlyFed();
        await this.takeRoom(teamId, snap);
        const endpoint = snap.byId.get(d.endpoint.id);
        if (!endpoint || endpoint.status !== 'enabled' || !(await this.slotFor(endpoint.id))) {
          this.giveRoom();
          queued.push(d);
          continue;
        }
        this.start({ ...d, endpoint }, snap, (ok) => finish(d, ok));
      }
      if (queued.length)
        await this.deps.queue.enqueue(
          queued.map((d) => ({ teamId, endpointId: d.endpoint.id, eventId: d.entry.id })),
        );
    } catch (err) {
      // neither attempted nor queued: their entries are given up (claimed again later)
      for (const d of [...queued, ...ready.slice(next)]) finish(d, false);
      throw err;
    }
    for (const d of queued) finish(d, true);
  }

  /**
   * Takes a place in the window once one is free, reading the endpoints again first when the
   * snapshot is stale. The check and the taking are one synchronous step after the last await:
   * two batches being fed at once (the next is read while this one's last deliveries start)
   * must not both see the same free place.
   */
  private async takeRoom(teamId: string, snap: Snapshot): Promise<void> {
    for (;;) {
      while (this.running >= this.deps.concurrency) await new Promise<void>((r) => this.room.push(r));
      if (Date.now() - snap.at > ENDPOINTS_FRESH_MS) {
        snap.at = Date.now();
        snap.byId = new Map((await this.deps.webhooks.all(teamId)).map((w) => [w.id, w]));
      }
      if (this.running < this.deps.concurrency) break;
    }
    this.running += 1;
  }

  private giveRoom(): void {
    this.running -= 1;
    this.room.shift()?.();
  }

  /**
   * A slot of the endpoint for a first attempt: at once, or after waiting at most SLOT_WAIT_MS
   * for one — the slots are shared with the queued deliveries, and a 200-answering endpoint
   * frees one within a round trip. An endpoint whose wait ran out is taken for slow and its
   * first attempts go to the queue without waiting for ENDPOINT_SLOW_MS, so a slow endpoint
   * holds the batch (and the other endpoints' deliveries behind it) at most SLOT_WAIT_MS in
   * every ENDPOINT_SLOW_MS.
   */
  private async slotFor(endpointId: string): Promise<boolean> {
    if (this.deps.slots.tryAcquire(endpointId)) return true;
    const slowUntil = this.slowUntil.get(endpointId);
    if (slowUntil !== undefined) {
      if (Date.now() < slowUntil) return false;
      this.slowUntil.delete(endpointId);
    }
    if (await this.deps.slots.acquire(endpointId, SLOT_WAIT_MS)) return true;
    this.slowUntil.set(endpointId, Date.now() + ENDPOINT_SLOW_MS);
    return false;
  }

  /** Resolves once every batch taken was fed, every attempt recorded and every acknowledgement sent. */
  async drain(): Promise<void> {
    await Promise.all(this.feeding);
    while (this.recording > 0) await new Promise<void>((r) => this.drained.push(r));
    await this.acks.settled();
  }

  /**
   * Starts one attempt, its window place and endpoint slot already taken. Its place in the window (and its endpoint's slot) is given back when the
   * response is in, not when the attempt is recorded: the window bounds requests in flight, and
   * the record rides the team's next batched write meanwhile.
   */
  private start(d: ReadyDelivery, snap: Snapshot, done: (ok: boolean) => void): void {
    this.recording += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.deps.slots.release(d.endpoint.id);
      this.giveRoom();
    };
    const sender: WebhookSender = { send: (req) => this.deps.sender.send(req).finally(release) };
    const target = { teamId: d.teamId, endpointId: d.endpoint.id };
    deliverDispatched(
      d,
      { log: this.deps.log, sender, queue: this.deps.queue, clock: this.clock },
      this.deps.policy,
    )
      .then(
        (result) => {
          observeDelivery(target, result);
          if (result.disabled) snap.byId.set(d.endpoint.id, { ...d.endpoint, status: 'disabled' });
          done(true);
        },
        (err: unknown) => {
          log().error(
            { err, ...target, eventId: d.entry.id },
            'webhook delivery could not be recorded; its event will be claimed again',
          );
          done(false);
        },
      )
      .finally(() => {
        release();
        this.recording -= 1;
        if (this.recording === 0) for (const r of this.drained.splice(0)) r();
      });
  }

  private ackLater(teamId: string, entryId: string): void {
    this.acks.add(teamId, entryId);
  }
}

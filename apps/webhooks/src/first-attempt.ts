/**
 * One first attempt straight from a stream batch (`deliverDispatched`, core): its window place and
 * endpoint slot are taken before it starts and given back when the response is in, not when the
 * attempt is recorded — the window bounds requests in flight, and the record rides the team's next
 * batched write meanwhile. A retry it asks for becomes a delayed job (the delivery worker's).
 */
import {
  deliverDispatched,
  systemClock,
  type DeliveryPolicy,
  type ReadyDelivery,
  type WebhookDeliveryQueuePort,
  type WebhookEventLogPort,
  type WebhookSender,
} from '@petrel/core';
import { log } from '@petrel/observability';
import type { AttemptWindow, EndpointSnapshot } from './attempt-window.js';
import type { EndpointSlots } from './endpoint-slots.js';
import { observeDelivery } from './delivery-metrics.js';

export interface FirstAttemptDeps {
  log: Pick<WebhookEventLogPort, 'recordAttempt'>;
  sender: WebhookSender;
  queue: WebhookDeliveryQueuePort;
  policy: DeliveryPolicy;
  /** The per-endpoint cap, shared with the delivery worker. */
  slots: EndpointSlots;
}

export class FirstAttempts {
  constructor(
    private readonly deps: FirstAttemptDeps,
    private readonly window: AttemptWindow,
  ) {}

  /**
   * Starts the attempt; `done(true)` once it is recorded (and its retry queued), `done(false)`
   * when it could not be — its event is then claimed again.
   */
  start(d: ReadyDelivery, snap: EndpointSnapshot, done: (ok: boolean) => void): void {
    this.window.begin();
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.deps.slots.release(d.endpoint.id);
      this.window.give();
    };
    const sender: WebhookSender = { send: (req) => this.deps.sender.send(req).finally(release) };
    const target = { teamId: d.teamId, endpointId: d.endpoint.id };
    deliverDispatched(
      d,
      { log: this.deps.log, sender, queue: this.deps.queue, clock: systemClock },
      this.deps.policy,
    )
      .then(
        (result) => {
          observeDelivery(target, result);
          if (result.disabled) snap.disabled(d.endpoint);
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
        this.window.done();
      });
  }
}

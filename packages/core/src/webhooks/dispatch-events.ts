/**
 * From events to deliveries: each event on a team's stream becomes one event-log entry and one
 * delivery per enabled endpoint subscribed to its type. Timeline-only kinds (email.queued,
 * email.canceled, email.rescheduled) are never delivered. The entry holds the exact body every
 * attempt will send, `{ type, created_at, data }` (Resend's envelope), so retries, replays and
 * the events API all see the same bytes.
 *
 * A delivery whose entry this call wrote is returned `ready`: its endpoint and entry are in hand,
 * so the caller can make its first attempt at once (`deliverDispatched`) without reading them
 * back or passing through the queue — or enqueue it. Until it has done one or the other for every
 * ready delivery, the caller must not acknowledge the events (a crash then re-reads them).
 *
 * Called again with the same events (the stream consumer died before acknowledging them), it
 * writes nothing twice: an entry still pending or attempting is enqueued (the job id makes that
 * idempotent while the job exists), a finished one is left alone.
 */
import { WEBHOOK_EVENT_TYPES, type EmailEvent, type TeamEvent } from '@petrel/contracts';
import type {
  NewWebhookEvent,
  WebhookDeliveryQueuePort,
  WebhookEventLogPort,
  WebhooksPort,
} from './ports.js';
import { newWebhookEventEntry, type WebhookEndpoint, type WebhookEventEntry } from './types.js';
import { guardAllows, WEBHOOK_ENDPOINT_MACHINE } from '../transitions/index.js';

const DELIVERABLE: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/** The body of every delivery of `event`. */
export function webhookBody(event: EmailEvent | TeamEvent): string {
  return JSON.stringify({ type: event.type, created_at: event.created_at, data: event.data });
}

/** A delivery whose entry was just written: nothing has attempted it yet. */
export interface ReadyDelivery {
  teamId: string;
  /** The endpoint as it was read for this dispatch. */
  endpoint: WebhookEndpoint;
  entry: WebhookEventEntry;
}

export async function dispatchWebhookEvents(
  cmd: { teamId: string; events: readonly (EmailEvent | TeamEvent)[] },
  ports: {
    webhooks: Pick<WebhooksPort, 'all'>;
    log: Pick<WebhookEventLogPort, 'addEvents'>;
    queue: WebhookDeliveryQueuePort;
    clock: { now(): number };
  },
): Promise<{ deliveries: number; ready: ReadyDelivery[] }> {
  const none = { deliveries: 0, ready: [] };
  const deliverable = cmd.events.filter((e) => DELIVERABLE.has(e.type));
  if (deliverable.length === 0) return none;
  const endpoints = (await ports.webhooks.all(cmd.teamId)).filter((w) =>
    guardAllows(WEBHOOK_ENDPOINT_MACHINE.guards.delivering, w.status),
  );
  const entries: NewWebhookEvent[] = [];
  const targets: WebhookEndpoint[] = [];
  for (const event of deliverable) {
    let body: string | undefined;
    for (const w of endpoints) {
      if (!w.events.includes(event.type)) continue;
      body ??= webhookBody(event);
      entries.push({
        endpointId: w.id,
        id: event.id,
        type: event.type,
        created_at: event.created_at,
        payload: body,
      });
      targets.push(w);
    }
  }
  if (entries.length === 0) return none;
  const found = await ports.log.addEvents(cmd.teamId, entries, ports.clock.now());
  const ready: ReadyDelivery[] = [];
  const again: { teamId: string; endpointId: string; eventId: string }[] = [];
  entries.forEach((e, i) => {
    if (found[i] === 'new')
      ready.push({ teamId: cmd.teamId, endpoint: targets[i]!, entry: newWebhookEventEntry(e) });
    else if (found[i] === 'due') again.push({ teamId: cmd.teamId, endpointId: e.endpointId, eventId: e.id });
  });
  if (again.length) await ports.queue.enqueue(again);
  return { deliveries: ready.length + again.length, ready };
}

/**
 * From events to deliveries: each event on a team's stream becomes one event-log entry and one
 * delivery job per enabled endpoint subscribed to its type. Timeline-only kinds (email.queued,
 * email.canceled, email.rescheduled) are never delivered. The entry holds the exact body every
 * attempt will send, `{ type, created_at, data }` (Resend's envelope), so retries, replays and
 * the events API all see the same bytes.
 *
 * Called again with the same events (the stream consumer died before acknowledging them), it
 * writes nothing twice and enqueues again only what is not finished; the job id makes the
 * enqueue itself idempotent while the job exists.
 */
import { WEBHOOK_EVENT_TYPES, type EmailEvent, type TeamEvent } from '@petrel/contracts';
import type {
  NewWebhookEvent,
  WebhookDeliveryQueuePort,
  WebhookEventLogPort,
  WebhooksPort,
} from './ports.js';

const DELIVERABLE: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

/** The body of every delivery of `event`. */
export function webhookBody(event: EmailEvent | TeamEvent): string {
  return JSON.stringify({ type: event.type, created_at: event.created_at, data: event.data });
}

export async function dispatchWebhookEvents(
  cmd: { teamId: string; events: readonly (EmailEvent | TeamEvent)[] },
  ports: {
    webhooks: Pick<WebhooksPort, 'all'>;
    log: Pick<WebhookEventLogPort, 'addEvents'>;
    queue: WebhookDeliveryQueuePort;
    clock: { now(): number };
  },
): Promise<{ deliveries: number }> {
  const deliverable = cmd.events.filter((e) => DELIVERABLE.has(e.type));
  if (deliverable.length === 0) return { deliveries: 0 };
  const endpoints = (await ports.webhooks.all(cmd.teamId)).filter((w) => w.status === 'enabled');
  const entries: NewWebhookEvent[] = [];
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
    }
  }
  if (entries.length === 0) return { deliveries: 0 };
  const due = await ports.log.addEvents(cmd.teamId, entries, ports.clock.now());
  const jobs = entries
    .filter((_, i) => due[i])
    .map((e) => ({ teamId: cmd.teamId, endpointId: e.endpointId, eventId: e.id }));
  if (jobs.length) await ports.queue.enqueue(jobs);
  return { deliveries: jobs.length };
}

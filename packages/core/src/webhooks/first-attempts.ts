/**
 * The rules of the first attempts a dispatcher makes straight from a stream batch
 * (`deliverDispatched`): which delivery may be attempted at once, and when the batch's stream
 * entries may be acknowledged.
 *
 * At-least-once delivery rests on the stream: an entry left unacknowledged is claimed again after
 * WEBHOOK_CLAIM_IDLE_MS and dispatched again, which the event log makes harmless (a finished
 * delivery is skipped, a pending one enqueued under its fixed job id). So an entry is settled only
 * once every ready delivery of its event was attempted and recorded, or queued: acknowledged when
 * all of them were, given up (left pending, to be claimed again) when one was neither.
 */
import { guardAllows, WEBHOOK_ENDPOINT_MACHINE } from '../transitions/index.js';
import type { WebhookEndpoint } from './types.js';

/**
 * Whether a ready delivery may be attempted now, by the endpoint as last read: one deleted or
 * disabled since the batch was dispatched gets no direct attempt (its queued job's read marks the
 * entry failed — Resend: "disabled/removed endpoints get no attempts").
 */
export function mayAttemptDirectly(endpoint: WebhookEndpoint | undefined): endpoint is WebhookEndpoint {
  return endpoint !== undefined && guardAllows(WEBHOOK_ENDPOINT_MACHINE.guards.delivering, endpoint.status);
}

/**
 * Tallies a batch's deliveries against its stream entries. An entry whose event has no ready
 * delivery (unreadable, taken by no endpoint, or dispatched before) is settled at once, as
 * acknowledged; an event carried by several entries (written twice) settles all of them together.
 * Returns what to call once per ready delivery: `ok` when it was attempted and recorded, or queued.
 */
export function tallyStreamEntries(
  entries: readonly { entryId: string; event: { id: string } | null }[],
  ready: readonly { entry: { id: string } }[],
  /** Called once per entry: `acked` true when it may be acknowledged, false when given up. */
  settle: (entryId: string, acked: boolean) => void,
): (eventId: string, ok: boolean) => void {
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
  for (const e of entries) if (!open.has(e.entryId)) settle(e.entryId, true);
  return (eventId, ok) => {
    for (const id of carriers.get(eventId) ?? []) {
      const t = open.get(id)!;
      t.left -= 1;
      if (!ok) t.failed = true;
      if (t.left <= 0) settle(id, !t.failed);
    }
  };
}

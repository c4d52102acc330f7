/**
 * Ends a delivery that Petrel itself cannot carry out (template gone, variables without value,
 * no recipient left, a message that cannot be built): records `email.failed` with the reason,
 * and the recipients left out on the way (each with why; a suppressed one also as
 * `email.suppressed`). Nothing was sent, so an ordinary write suffices (a lost one is redone
 * when the job reruns).
 */
import { emailEvent } from '../../emails/email-event.js';
import type { DeliverOutcome, DeliverStageName } from '../outcome.js';
import { droppedEvents, RECIPIENTS_KEY } from '../recipient-outcomes.js';
import type { DeliverDeps, DeliveryContext } from '../stage.js';

export async function failDelivery(
  ctx: DeliveryContext,
  deps: DeliverDeps,
  stage: DeliverStageName,
  reason: string,
): Promise<DeliverOutcome> {
  const { teamId } = ctx.job;
  const dropped = ctx.dropped ?? [];
  const data: Record<string, unknown> = { failed: { reason } };
  if (dropped.length > 0) data[RECIPIENTS_KEY] = dropped;
  const items = [
    ...droppedEvents(dropped).map((e) => ({
      status: 'failed' as const,
      event: emailEvent(e.type, teamId, ctx.email, e.data, deps),
    })),
    { status: 'failed' as const, event: emailEvent('email.failed', teamId, ctx.email, data, deps) },
  ];
  await deps.emails.recordEvents(teamId, ctx.email.id, items);
  return { kind: 'failed', stage, reason };
}

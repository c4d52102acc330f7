/**
 * Ends a delivery that Petrel itself cannot carry out (template gone, variables without value,
 * no recipient left, a message that cannot be built): records `email.failed` with the reason.
 * Nothing was sent, so an ordinary write suffices (a lost one is redone when the job reruns).
 */
import { emailEvent } from '../email-event.js';
import type { DeliverOutcome, DeliverStageName } from '../outcome.js';
import type { DeliverDeps, DeliveryContext } from '../stage.js';

export async function failDelivery(
  ctx: DeliveryContext,
  deps: DeliverDeps,
  stage: DeliverStageName,
  reason: string,
): Promise<DeliverOutcome> {
  const { teamId } = ctx.job;
  const event = emailEvent('email.failed', teamId, ctx.email, { failed: { reason } }, deps);
  await deps.emails.recordEvents(teamId, ctx.email.id, [{ status: 'failed', event }]);
  return { kind: 'failed', stage, reason };
}

/**
 * resolve-content: what this email sends. The record holds the content settled at acceptance
 * (subject, from and reply_to included for a template); an email sent from a template also
 * needs the version it pinned, which must still exist.
 *
 * A broadcast's email stores no html/text: its content is the broadcast's (from, subject,
 * reply_to, html, text, topic), read here (the content may come from a cache, it never changes
 * once sent; the status is read fresh). A broadcast deleted or canceled since the fan-out stops
 * its emails not sent yet: the email is canceled (`email.canceled` on its timeline) and nothing
 * is sent. A paused one (its rates breached the team's thresholds, broadcasts/protection.ts)
 * holds them: the job waits and looks again, so nothing is sent and nothing is lost until a
 * person resumes or cancels it.
 */
import { DEFAULT_BROADCAST_PROTECTION } from '../../broadcasts/protection.js';
import { BROADCAST_MACHINE, guardAllows } from '../../transitions/index.js';
import type { DeliverOutcome } from '../outcome.js';
import type { DeliverDeps, DeliverStage, DeliveryContext } from '../stage.js';
import { failDelivery } from './fail.js';

export const resolveContent: DeliverStage<never> = {
  name: 'resolve-content',
  needs: [],
  async run(ctx, deps) {
    const { email } = ctx;
    ctx.content = { ...email.content, attachments: ctx.attachments };
    if (email.broadcastId !== null) return broadcastContent(ctx, deps, email.broadcastId);
    if (!email.template || !email.content.template) return;
    const { id, versionId } = email.template;
    // versions are immutable once published, so the store may serve this from its cache
    const version = await deps.templates.getCompiledVersion(email.teamId, id, versionId);
    if (!version) {
      return failDelivery(
        ctx,
        deps,
        'resolve-content',
        `template ${id} version ${versionId} no longer exists`,
      );
    }
    ctx.template = version;
  },
};

async function broadcastContent(
  ctx: DeliveryContext,
  deps: DeliverDeps,
  broadcastId: string,
): Promise<DeliverOutcome | void> {
  const { teamId } = ctx.job;
  const broadcast = await deps.broadcasts.forSend(teamId, broadcastId);
  if (!broadcast || broadcast.status === 'canceled') {
    const reason = broadcast ? 'the broadcast was canceled' : 'the broadcast was deleted';
    await deps.emails.recordEvents(teamId, ctx.email.id, [
      {
        status: 'canceled',
        event: {
          id: deps.ids.newEventId(),
          type: 'email.canceled',
          created_at: new Date(deps.clock.now()).toISOString(),
          teamId,
          data: { email_id: ctx.email.id, broadcast_id: broadcastId, reason },
        },
      },
    ]);
    return { kind: 'skipped', status: 'canceled' };
  }
  if (guardAllows(BROADCAST_MACHINE.guards.held, broadcast.status)) {
    const { holdRecheckMs } = deps.protection ?? DEFAULT_BROADCAST_PROTECTION;
    return { kind: 'held', untilMs: deps.clock.now() + holdRecheckMs };
  }
  const c = broadcast.content;
  const { html: _html, text: _text, topic_id: _topic, ...stored } = ctx.content!;
  ctx.content = {
    ...stored,
    from: c.from,
    subject: c.subject,
    reply_to: c.reply_to ?? [],
    ...(c.html !== null && { html: c.html }),
    ...(c.text !== null && { text: c.text }),
    ...(c.topic_id !== null && { topic_id: c.topic_id }),
  };
}

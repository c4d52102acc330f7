/**
 * decide-recipients: who gets this attempt. Every address of to, cc and bcc, once each, decided
 * on its own by the suppression list, and for an email with a topic (or of a broadcast) by the
 * topic rule and the contact's unsubscribe (audience/recipient-decision.ts) — read in one round trip, afresh on
 * every attempt, so a recipient who unsubscribes while the email waits for a retry is left out.
 *
 * An address left out is removed from the headers too (a dropped Cc must not show, and nobody
 * learns that someone was dropped) and recorded with why; the email goes to the rest. When
 * nobody is left, the email fails with the reasons.
 */
import type { EmailContent } from '@petrel/contracts';
import { DROP_MESSAGES, decideRecipient, type DropReason } from '../../audience/recipient-decision.js';
import type { RecipientOutcome } from '../recipient-outcomes.js';
import { envelopeRecipients } from '../recipients.js';
import { bareAddress, mailboxKey } from '../../kernel/mailbox.js';
import type { DeliverStage } from '../stage.js';
import { failDelivery } from './fail.js';

export const decideRecipients: DeliverStage<'content'> = {
  name: 'decide-recipients',
  needs: ['content'],
  async run(ctx, deps) {
    const all = envelopeRecipients(ctx.content);
    const topicId = ctx.content.topic_id ?? null;
    const { topicDefault, states } = await deps.recipients.read(ctx.job.teamId, all, topicId);
    const topic = topicId === null ? null : { id: topicId, default: topicDefault };
    const listMail = ctx.email.broadcastId !== null;
    const kept: string[] = [];
    const dropped: RecipientOutcome[] = [];
    all.forEach((address, i) => {
      const verdict = decideRecipient(states[i]!, topic, listMail);
      if (verdict.send) kept.push(address);
      else dropped.push(droppedOutcome(address, verdict.reason));
    });
    ctx.dropped = dropped;
    if (dropped.length > 0) ctx.content = withoutAddresses(ctx.content, dropped);
    if (kept.length === 0) {
      const reason =
        all.length === 0 ? 'no recipient left to send to' : `no recipient left: ${summary(dropped)}`;
      return failDelivery(ctx, deps, 'decide-recipients', reason);
    }
    ctx.recipients = kept;
  },
};

function droppedOutcome(email: string, reason: DropReason): RecipientOutcome {
  return reason === 'suppressed'
    ? {
        email,
        status: 'suppressed',
        suppressed: { message: DROP_MESSAGES.suppressed, type: 'OnAccountSuppressionList' },
      }
    : { email, status: 'failed', failed: { reason: DROP_MESSAGES[reason] } };
}

/** `a@x: why; b@y: why`, for the email's failure reason. */
function summary(dropped: readonly RecipientOutcome[]): string {
  return dropped
    .map(
      (d) =>
        `${d.email}: ${d.status === 'suppressed' ? d.suppressed.message : d.status === 'failed' ? d.failed.reason : d.status}`,
    )
    .join('; ');
}

/** The content with every dropped address taken out of to, cc and bcc. */
function withoutAddresses(content: EmailContent, dropped: readonly RecipientOutcome[]): EmailContent {
  const gone = new Set(dropped.map((d) => mailboxKey(d.email)));
  const keep = (list: readonly string[]) => list.filter((entry) => !gone.has(mailboxKey(bareAddress(entry))));
  return { ...content, to: keep(content.to), cc: keep(content.cc), bcc: keep(content.bcc) };
}

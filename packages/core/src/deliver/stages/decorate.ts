/**
 * decorate: the headers Petrel owns for this attempt. The Message-ID keeps the id and domain
 * fixed at acceptance (`<emailId@domain>`), so a retried job is the same message to the
 * receiver (RFC 5322 section 3.6.4); the Date is this attempt's (section 3.6.1: when the message
 * was ready to go).
 *
 * An email sent to a list — with a topic, or as part of a broadcast — carries an unsubscribe
 * link per recipient: `List-Unsubscribe` (RFC 2369) with a signed URL naming that recipient, and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058), which mailbox providers require
 * of bulk senders to show their one-click button. The link is personal, so each recipient then
 * gets a message of their own (build-mime).
 */
import { broadcastUnsubscribeUrl } from '../../broadcasts/personal-content.js';
import type { DeliverStage } from '../stage.js';

/** Domain of a `<id@domain>` Message-ID; a record from before Message-IDs were stored has none. */
function messageIdDomain(messageId: string): string {
  return /@([^>]+)>?$/.exec(messageId)?.[1] ?? 'petrel.local';
}

/** RFC 8058 section 3.1: the one value of List-Unsubscribe-Post. */
const ONE_CLICK = 'List-Unsubscribe=One-Click';

export const decorate: DeliverStage<'recipients' | 'content'> = {
  name: 'decorate',
  needs: ['recipients', 'content'],
  run(ctx, deps) {
    ctx.decoration = {
      messageIdDomain: messageIdDomain(ctx.email.messageId),
      date: new Date(deps.clock.now()),
    };
    const topicId = ctx.content.topic_id ?? null;
    if (topicId === null && ctx.email.broadcastId === null) return;
    const { teamId } = ctx.job;
    ctx.decoration.recipientHeaders = new Map(
      ctx.recipients.map((recipient) => {
        // a broadcast's email: the link its body carries (issued at the email's creation)
        const url =
          ctx.email.broadcastId === null
            ? deps.unsubscribe.url({ teamId, emailId: ctx.email.id, recipient, topicId })
            : broadcastUnsubscribeUrl(ctx.email, recipient, topicId, deps.unsubscribe);
        return [recipient, { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': ONE_CLICK }];
      }),
    );
  },
};

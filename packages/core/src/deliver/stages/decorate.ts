/**
 * decorate: the headers Petrel owns for this attempt. The Message-ID keeps the id and domain
 * fixed at acceptance (`<emailId@domain>`), so a retried job is the same message to the
 * receiver (RFC 5322 section 3.6.4); the Date is this attempt's (section 3.6.1: when the message
 * was ready to go). List-Unsubscribe and tracking headers join here.
 */
import type { DeliverStage } from '../stage.js';

/** Domain of a `<id@domain>` Message-ID; a record from before Message-IDs were stored has none. */
export function messageIdDomain(messageId: string): string {
  return /@([^>]+)>?$/.exec(messageId)?.[1] ?? 'petrel.local';
}

export const decorate: DeliverStage<never> = {
  name: 'decorate',
  needs: [],
  run(ctx, deps) {
    ctx.decoration = {
      messageIdDomain: messageIdDomain(ctx.email.messageId),
      date: new Date(deps.clock.now()),
    };
  },
};

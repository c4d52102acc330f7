/**
 * decide-recipients: who gets this attempt. Today every address of to, cc and bcc, once each;
 * topic subscriptions and the suppression list decide per address here (each address on its
 * own), and an address they drop is recorded, not sent to.
 */
import { envelopeRecipients } from '../recipients.js';
import type { DeliverStage } from '../stage.js';
import { failDelivery } from './fail.js';

export const decideRecipients: DeliverStage<'content'> = {
  name: 'decide-recipients',
  needs: ['content'],
  run(ctx, deps) {
    const recipients = envelopeRecipients(ctx.content);
    if (recipients.length === 0) {
      return failDelivery(ctx, deps, 'decide-recipients', 'no recipient left to send to');
    }
    ctx.recipients = recipients;
  },
};

/**
 * build-mime: the RFC 5322 message and its envelope — one for all recipients, or one per
 * recipient when decorate gave each their own headers (the same content, Message-ID and Date;
 * only the envelope and those headers differ). A message that cannot be built never will be (an
 * unsafe header, an address the builder refuses): it fails now instead of retrying.
 */
import type { OutgoingEmail } from '../ports.js';
import type { DeliverStage } from '../stage.js';
import { failDelivery } from './fail.js';

export const buildMime: DeliverStage<'content' | 'recipients' | 'decoration'> = {
  name: 'build-mime',
  needs: ['content', 'recipients', 'decoration'],
  run(ctx, deps) {
    const { recipientHeaders, ...decoration } = ctx.decoration;
    const base = { emailId: ctx.email.id, content: ctx.content, ...decoration };
    const groups = recipientHeaders
      ? ctx.recipients.map((r) => ({ recipients: [r], extraHeaders: recipientHeaders.get(r) ?? {} }))
      : [{ recipients: ctx.recipients }];
    const messages: OutgoingEmail[] = [];
    for (const group of groups) {
      const built = deps.mime.build({ ...base, ...group });
      if (!built.ok) return failDelivery(ctx, deps, 'build-mime', built.reason);
      messages.push(built.message);
    }
    ctx.messages = messages;
  },
};

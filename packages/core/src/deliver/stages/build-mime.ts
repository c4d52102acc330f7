/**
 * build-mime: the RFC 5322 message and its envelope — one for all recipients, or one per
 * recipient when decorate gave each their own headers or track their own html (the same
 * Message-ID and Date; only the envelope, those headers and the tracked html differ). A message that cannot be built never will be (an
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
    const { recipientHtml } = ctx;
    const base = { emailId: ctx.email.id, content: ctx.content, ...decoration };
    const personal = (r: string) => {
      const html = recipientHtml?.get(r);
      return html === undefined ? {} : { content: { ...ctx.content, html } };
    };
    const groups =
      recipientHeaders || recipientHtml
        ? ctx.recipients.map((r) => ({
            recipients: [r],
            extraHeaders: recipientHeaders?.get(r) ?? {},
            ...personal(r),
          }))
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

/**
 * build-mime: the RFC 5322 message and its envelope. A message that cannot be built never will
 * be (an unsafe header, an address the builder refuses): it fails now instead of retrying.
 */
import type { DeliverStage } from '../stage.js';
import { failDelivery } from './fail.js';

export const buildMime: DeliverStage<'content' | 'recipients' | 'decoration'> = {
  name: 'build-mime',
  needs: ['content', 'recipients', 'decoration'],
  run(ctx, deps) {
    const built = deps.mime.build({
      emailId: ctx.email.id,
      content: ctx.content,
      recipients: ctx.recipients,
      ...ctx.decoration,
    });
    if (!built.ok) return failDelivery(ctx, deps, 'build-mime', built.reason);
    ctx.message = built.message;
  },
};

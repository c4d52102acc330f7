/**
 * resolve-content: what this email sends. The record holds the content settled at acceptance
 * (subject, from and reply_to included for a template); an email sent from a template also
 * needs the version it pinned, which must still exist.
 */
import type { DeliverStage } from '../stage.js';
import { failDelivery } from './fail.js';

export const resolveContent: DeliverStage<never> = {
  name: 'resolve-content',
  needs: [],
  async run(ctx, deps) {
    const { email } = ctx;
    ctx.content = { ...email.content, attachments: ctx.attachments };
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

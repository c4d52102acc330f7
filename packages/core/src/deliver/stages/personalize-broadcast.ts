/**
 * The render step of a broadcast's email: its subject, html and text personalised for its one
 * recipient with the contact values the fan-out stored with the email, and the recipient's own
 * unsubscribe link (broadcasts/personal-content.ts, the same render GET /emails/:id answers).
 */
import { personalContent } from '../../broadcasts/personal-content.js';
import type { ContextWith, DeliverDeps } from '../stage.js';

export async function personalizeBroadcastEmail(
  ctx: ContextWith<'content'>,
  deps: DeliverDeps,
): Promise<void> {
  const { content } = ctx;
  const out = await personalContent(
    ctx.email,
    {
      subject: content.subject,
      ...(content.html !== undefined && { html: content.html }),
      ...(content.text !== undefined && { text: content.text }),
    },
    content.topic_id ?? null,
    deps,
  );
  ctx.content = { ...content, ...out };
}

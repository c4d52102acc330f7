/**
 * The render step of a broadcast's email: its subject, html and text personalised for its one
 * recipient (broadcasts/personalize.ts) with the contact as it is now — names changed since the
 * fan-out show — and the recipient's own unsubscribe link. The contact is read only when the
 * content has contact placeholders, the property definitions only when it uses custom
 * properties. A contact deleted since the fan-out renders the fallbacks.
 */
import { personalize, placeholderNeeds, type PersonalContact } from '../../broadcasts/personalize.js';
import { bareAddress } from '../recipients.js';
import type { ContextWith, DeliverDeps } from '../stage.js';

export async function personalizeBroadcastEmail(
  ctx: ContextWith<'content'>,
  deps: DeliverDeps,
): Promise<void> {
  const { teamId } = ctx.job;
  const { content } = ctx;
  const recipient = ctx.recipients?.[0] ?? bareAddress(content.to[0] ?? '');
  const needs = placeholderNeeds([content.subject, content.html, content.text]);
  const contactId = ctx.email.contactId;
  const [contact, defs] = await Promise.all([
    needs.contact && contactId ? deps.contacts.get(teamId, contactId) : null,
    needs.properties ? deps.contactProperties.all(teamId) : [],
  ]);
  const who: PersonalContact = contact ?? {
    email: recipient,
    first_name: null,
    last_name: null,
    properties: {},
  };
  const url = deps.unsubscribe.url({
    teamId,
    emailId: ctx.email.id,
    recipient,
    topicId: content.topic_id ?? null,
  });
  const out = personalize(
    {
      subject: content.subject,
      ...(content.html !== undefined && { html: content.html }),
      ...(content.text !== undefined && { text: content.text }),
    },
    who,
    defs,
    url,
  );
  ctx.content = { ...content, ...out };
}

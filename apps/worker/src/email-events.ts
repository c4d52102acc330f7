/** Build the webhook-shaped `data` of an email event (reference C.10) from a record. */
import type { EmailRecord } from '@petrel/store';

export function emailEventData(r: EmailRecord, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const c = r.content;
  return {
    email_id: r.id,
    created_at: r.createdAt,
    message_id: r.messageId,
    from: c.from,
    to: c.to,
    ...(c.cc.length ? { cc: c.cc } : {}),
    ...(c.bcc.length ? { bcc: c.bcc } : {}),
    subject: c.subject,
    ...(r.broadcastId ? { broadcast_id: r.broadcastId } : {}),
    ...(r.template ? { template_id: r.template.id } : {}),
    ...(c.tags.length ? { tags: Object.fromEntries(c.tags.map((t) => [t.name, t.value])) } : {}),
    ...extra,
  };
}

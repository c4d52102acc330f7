/**
 * Email events as the timeline stores them and the webhook dispatcher sends them: the envelope
 * (id, type, time, team) around the webhook-shaped `data` Resend sends. Every stage that
 * records something builds its event here, so all events of an email describe it the same way.
 */
import type { EmailEvent, EmailEventType } from '@petrel/contracts';
import { stampEvent, type EventStamp } from '../kernel/event-stamp.js';
import type { EmailToDeliver } from './record.js';

/** The webhook-shaped `data` of an email event, plus what the event adds (`bounce`, `delay`…). */
export function emailEventData(
  email: EmailToDeliver,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const c = email.content;
  return {
    email_id: email.id,
    created_at: email.createdAt,
    message_id: email.messageId,
    from: c.from,
    to: c.to,
    ...(c.cc.length ? { cc: c.cc } : {}),
    ...(c.bcc.length ? { bcc: c.bcc } : {}),
    subject: c.subject,
    ...(email.broadcastId ? { broadcast_id: email.broadcastId } : {}),
    ...(email.template ? { template_id: email.template.id } : {}),
    ...(c.tags.length ? { tags: Object.fromEntries(c.tags.map((t) => [t.name, t.value])) } : {}),
    ...extra,
  };
}

/** A new event about `email`, stamped with a fresh id and the current time. */
export function emailEvent(
  type: EmailEventType,
  teamId: string,
  email: EmailToDeliver,
  extra: Record<string, unknown> | undefined,
  stamp: EventStamp,
): EmailEvent {
  return stampEvent(type, teamId, emailEventData(email, extra), stamp);
}

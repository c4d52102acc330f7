/**
 * Events about audience resources, in the envelope the webhook dispatcher sends
 * (`{ type, created_at, data }` plus id and team), built in one place so every producer
 * describes a contact the same way (Resend's contact.* payloads).
 */
import type { ContactRecord, TeamEvent } from '@petrel/contracts';
import { stampEvent, type EventStamp } from '../kernel/event-stamp.js';

export function teamEvent(
  type: TeamEvent['type'],
  teamId: string,
  data: Record<string, unknown>,
  stamp: EventStamp,
): TeamEvent {
  return stampEvent(type, teamId, data, stamp);
}

/**
 * The `data` of contact.created / contact.updated / contact.deleted: the contact as Resend's
 * webhooks carry it, with the segments it belongs to (`audience_id` is the first, for
 * consumers of the legacy audience field).
 */
export function contactEventData(
  contact: ContactRecord,
  segmentIds: readonly string[],
): Record<string, unknown> {
  return {
    id: contact.id,
    audience_id: segmentIds[0] ?? null,
    segment_ids: [...segmentIds],
    created_at: contact.created_at,
    updated_at: contact.updated_at,
    email: contact.email,
    first_name: contact.first_name,
    last_name: contact.last_name,
    unsubscribed: contact.unsubscribed,
  };
}

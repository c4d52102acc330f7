/**
 * Contacts and segments in Resend's wire shapes, shared by /contacts, /segments and the legacy
 * /audiences routes.
 */
import type { ContactRecord, SegmentRecord } from '@petrel/contracts';

/** A contact in a list. */
export function contactListItem(c: ContactRecord) {
  return {
    id: c.id,
    email: c.email,
    first_name: c.first_name,
    last_name: c.last_name,
    unsubscribed: c.unsubscribed,
    created_at: c.created_at,
  };
}

/** GET /contacts/:c: properties as `{ key: { type, value } }`. */
export function contactWire(c: ContactRecord) {
  const properties = Object.fromEntries(
    Object.entries(c.properties).map(([key, value]) => [key, { type: typeof value, value }]),
  );
  return { object: 'contact', ...contactListItem(c), properties };
}

export const segmentListItem = (s: SegmentRecord) => ({ id: s.id, name: s.name, created_at: s.created_at });

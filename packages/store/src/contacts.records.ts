/**
 * The contact hash and the pure steps between it and a ContactRecord.
 *
 * Fields: id, email (as the client wrote it), mailbox (its `mailboxKey`), first_name and
 * last_name (absent = null), unsubscribed ('1' | '0'), created_at, created_ms (the listing
 * score, read by scripts that add the contact to a segment), updated_at, rev (see
 * contacts.scripts.ts), and one `p:<property id>` field per custom property value, holding the
 * value as JSON (a string or a number). Values are keyed by property id, not key: a deleted
 * property's values are never shown again, and a new property with the same key starts empty.
 */
import type { ContactPropertyValue, ContactRecord } from '@petrel/contracts';

/** Prefix of a property value's field. */
export const PROPERTY_FIELD = 'p:';

/** The hash fields a contact is stored with. */
export function contactPairs(
  c: Omit<ContactRecord, 'properties'> & { mailbox: string; createdMs: number },
  propertiesById: Record<string, ContactPropertyValue>,
): string[] {
  const out = [
    'id',
    c.id,
    'email',
    c.email,
    'mailbox',
    c.mailbox,
    'unsubscribed',
    c.unsubscribed ? '1' : '0',
    'created_at',
    c.created_at,
    'created_ms',
    String(c.createdMs),
    'updated_at',
    c.updated_at,
    'rev',
    '0',
  ];
  if (c.first_name !== null) out.push('first_name', c.first_name);
  if (c.last_name !== null) out.push('last_name', c.last_name);
  for (const [id, value] of Object.entries(propertiesById))
    out.push(PROPERTY_FIELD + id, JSON.stringify(value));
  return out;
}

/** `key → id` of the team's properties, turned into `id → key`. */
export function keysById(keyToId: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(keyToId).map(([key, id]) => [id, key]));
}

/** A contact from its hash; values of properties that no longer exist are left out. */
export function toContact(r: Record<string, string>, keyById: ReadonlyMap<string, string>): ContactRecord {
  const properties: Record<string, ContactPropertyValue> = {};
  for (const [field, raw] of Object.entries(r)) {
    if (!field.startsWith(PROPERTY_FIELD)) continue;
    const key = keyById.get(field.slice(PROPERTY_FIELD.length));
    if (key !== undefined) properties[key] = JSON.parse(raw) as ContactPropertyValue;
  }
  return {
    id: r.id ?? '',
    email: r.email ?? '',
    first_name: r.first_name ?? null,
    last_name: r.last_name ?? null,
    unsubscribed: r.unsubscribed === '1',
    properties,
    created_at: r.created_at ?? '',
    updated_at: r.updated_at ?? '',
  };
}

/**
 * The changes a patch makes to a stored hash: fields to set, fields to delete. Equal values are
 * no change, so a patch that changes nothing writes nothing (and publishes no event).
 */
export function patchFields(
  r: Record<string, string>,
  patch: {
    first_name?: string | null;
    last_name?: string | null;
    unsubscribed?: boolean;
    properties?: Record<string, ContactPropertyValue | null>;
  },
): { set: string[]; del: string[] } {
  const set: string[] = [];
  const del: string[] = [];
  const write = (field: string, value: string | null | undefined): void => {
    if (value === undefined || value === (r[field] ?? null)) return;
    if (value === null) del.push(field);
    else set.push(field, value);
  };
  write('first_name', patch.first_name);
  write('last_name', patch.last_name);
  if (patch.unsubscribed !== undefined) write('unsubscribed', patch.unsubscribed ? '1' : '0');
  for (const [id, value] of Object.entries(patch.properties ?? {})) {
    write(PROPERTY_FIELD + id, value === null ? null : JSON.stringify(value));
  }
  return { set, del };
}

/** `r` with a patch's fields applied. */
export function applyFields(
  r: Record<string, string>,
  set: readonly string[],
  del: readonly string[],
): Record<string, string> {
  const next = { ...r };
  for (let i = 0; i < set.length; i += 2) next[set[i]!] = set[i + 1]!;
  for (const f of del) delete next[f];
  return next;
}

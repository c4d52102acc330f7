/**
 * The plan of one import batch (ContactsStore.upsertMany): each row validated (a bare valid
 * address, properties defined and of their type: the same rules as POST /contacts), rows of one
 * mailbox merged (later values win; under `skip` the later rows are skipped), and each mailbox
 * turned into the arguments of `petrelUpsertContacts`: a create, an update, or nothing (`skip`
 * of an existing contact). Every row lands in exactly one count.
 */
import type { ContactPropertyValue } from '@petrel/contracts';
import {
  contactEmail,
  mailboxKey,
  newId,
  resolvePropertyValues,
  type ImportBatchCounts,
  type ImportConflict,
  type ImportedContact,
  type PropertyDefinition,
} from '@petrel/core';
import { PROPERTY_FIELD, contactPairs } from './contacts.records.js';

/** Rows written by one script call: bounded so one call never holds Redis for long. */
export const IMPORT_SCRIPT_ROWS = 500;

/** One mailbox's write: the contact id it names and its per-row script arguments. */
export interface ImportWrite {
  id: string;
  args: (string | number)[];
}

interface Merged {
  email: string;
  mailbox: string;
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  properties: Record<string, ContactPropertyValue | null>;
}

export async function planImport(
  rows: readonly ImportedContact[],
  onConflict: ImportConflict,
  definitions: readonly PropertyDefinition[],
  nowMs: number,
  lookup: (mailboxes: string[]) => Promise<(string | null)[]>,
): Promise<{ writes: ImportWrite[]; counts: ImportBatchCounts }> {
  const counts: ImportBatchCounts = { created: 0, updated: 0, skipped: 0, failed: 0 };
  const merged = new Map<string, Merged>();
  for (const row of rows) {
    let email: string;
    let properties: Record<string, ContactPropertyValue | null>;
    try {
      email = contactEmail(row.email);
      properties = resolvePropertyValues(row.properties ?? {}, definitions);
    } catch {
      counts.failed++;
      continue;
    }
    const mailbox = mailboxKey(email);
    const seen = merged.get(mailbox);
    if (seen) {
      if (onConflict === 'skip') counts.skipped++;
      else {
        counts.updated++;
        Object.assign(seen, definedOf(row));
        Object.assign(seen.properties, properties);
      }
      continue;
    }
    merged.set(mailbox, { email, mailbox, ...definedOf(row), properties });
  }
  const all = [...merged.values()];
  const existing = all.length === 0 ? [] : await lookup(all.map((m) => m.mailbox));
  const iso = new Date(nowMs).toISOString();
  const writes: ImportWrite[] = [];
  all.forEach((m, i) => {
    const id = existing[i];
    if (id && onConflict === 'skip') {
      counts.skipped++;
      return;
    }
    if (id) {
      counts.updated++;
      const set: string[] = ['updated_at', iso];
      const del: string[] = [];
      const put = (field: string, v: string | null | undefined): void => {
        if (v === null) del.push(field);
        else if (v !== undefined) set.push(field, v);
      };
      put('first_name', m.first_name);
      put('last_name', m.last_name);
      if (m.unsubscribed !== undefined) put('unsubscribed', m.unsubscribed ? '1' : '0');
      for (const [pid, v] of Object.entries(m.properties))
        put(PROPERTY_FIELD + pid, v === null ? null : JSON.stringify(v));
      const unsub = m.unsubscribed === undefined ? '' : m.unsubscribed ? '1' : '0';
      writes.push({ id, args: [m.mailbox, id, '1', unsub, nowMs, set.length, del.length, ...set, ...del] });
      return;
    }
    counts.created++;
    const newContactId = newId(nowMs);
    const values = Object.fromEntries(Object.entries(m.properties).filter(([, v]) => v !== null)) as Record<
      string,
      ContactPropertyValue
    >;
    const set = contactPairs(
      {
        id: newContactId,
        email: m.email,
        mailbox: m.mailbox,
        first_name: m.first_name ?? null,
        last_name: m.last_name ?? null,
        unsubscribed: m.unsubscribed ?? false,
        created_at: iso,
        updated_at: iso,
        createdMs: nowMs,
      },
      values,
    );
    const unsub = m.unsubscribed ? '1' : '0';
    writes.push({
      id: newContactId,
      args: [m.mailbox, newContactId, '0', unsub, nowMs, set.length, 0, ...set],
    });
  });
  return { writes, counts };
}

/** The contact fields a row gives (absent ones left out, so a merge keeps earlier values). */
function definedOf(row: ImportedContact): Partial<Pick<Merged, 'first_name' | 'last_name' | 'unsubscribed'>> {
  const out: Partial<Pick<Merged, 'first_name' | 'last_name' | 'unsubscribed'>> = {};
  if (row.first_name !== undefined) out.first_name = row.first_name;
  if (row.last_name !== undefined) out.last_name = row.last_name;
  if (row.unsubscribed !== undefined) out.unsubscribed = row.unsubscribed;
  return out;
}

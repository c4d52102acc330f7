/**
 * Personalisation of a broadcast's content for one contact, at send time (render stage), with
 * Resend's triple-brace placeholders (https://resend.com/docs/dashboard/broadcasts/introduction,
 * "Personalize your content"):
 *
 * - `{{{contact.first_name|fallback}}}`, `{{{contact.last_name|fallback}}}`, `{{{contact.email}}}`
 *   (also the older `{{{FIRST_NAME|…}}}`, `{{{LAST_NAME|…}}}`, `{{{EMAIL}}}`);
 * - `{{{contact.<property key>|fallback}}}`: the contact's value of a custom property, else the
 *   placeholder's fallback, else the property's `fallback_value`;
 * - `{{{RESEND_UNSUBSCRIBE_URL}}}` / `{{{UNSUBSCRIBE_URL}}}`: the recipient's signed link.
 *
 * A value inserted into html is HTML-escaped (a name like `<b>` must not become markup); into
 * text as it is, into the subject with control characters and line breaks as spaces (a header is
 * one line). Anything else between triple braces is left as written. Pure.
 */
import type { ContactPropertyRecord, ContactRecord } from '@petrel/contracts';
import { escapeHtml, sanitizeSubject } from '../templates/render-template.js';

/** What a placeholder may read of the contact (a deleted contact: its address, nothing else). */
export type PersonalContact = Pick<ContactRecord, 'email' | 'first_name' | 'last_name' | 'properties'>;

/** The parts of an email that are personalised. */
export interface PersonalSource {
  subject: string;
  html?: string;
  text?: string;
}

const PLACEHOLDER = /\{\{\{\s*([A-Za-z_][\w.-]*)\s*(?:\|([^}]*))?\}\}\}/g;
const LEGACY: Readonly<Record<string, string>> = {
  FIRST_NAME: 'first_name',
  LAST_NAME: 'last_name',
  EMAIL: 'email',
};
const UNSUBSCRIBE = new Set(['RESEND_UNSUBSCRIBE_URL', 'UNSUBSCRIBE_URL']);

/** The contact field a placeholder name reads (`first_name`, a property key…), or null. */
function contactField(name: string): string | null {
  if (name.startsWith('contact.')) return name.slice('contact.'.length) || null;
  return LEGACY[name] ?? null;
}

/** What `sources` read: the contact at all, and custom properties (whose definitions hold fallbacks). */
export function placeholderNeeds(sources: readonly (string | undefined)[]): {
  contact: boolean;
  properties: boolean;
} {
  const needs = { contact: false, properties: false };
  for (const source of sources) {
    if (!source) continue;
    for (const m of source.matchAll(PLACEHOLDER)) {
      const field = contactField(m[1]!);
      if (field === null) continue;
      needs.contact = true;
      if (field !== 'first_name' && field !== 'last_name' && field !== 'email') needs.properties = true;
    }
  }
  return needs;
}

function fill(
  source: string,
  contact: PersonalContact,
  defs: ReadonlyMap<string, ContactPropertyRecord>,
  unsubscribeUrl: string,
  encode: (s: string) => string,
): string {
  return source.replace(PLACEHOLDER, (whole, name: string, fallback: string | undefined) => {
    if (UNSUBSCRIBE.has(name)) return encode(unsubscribeUrl);
    const field = contactField(name);
    if (field === null) return whole;
    const given = fallback?.trim();
    let value: string | null | undefined;
    if (field === 'email') value = contact.email;
    else if (field === 'first_name' || field === 'last_name') value = contact[field];
    else {
      const v = contact.properties[field];
      value = v === undefined || v === null ? undefined : String(v);
      if ((value === undefined || value === '') && given === undefined) {
        const def = defs.get(field)?.fallback_value;
        value = def === undefined || def === null ? undefined : String(def);
      }
    }
    return encode(value === null || value === undefined || value === '' ? (given ?? '') : value);
  });
}

/** `source` for one recipient: html escaped, text as it is, subject on one line. */
export function personalize(
  source: PersonalSource,
  contact: PersonalContact,
  propertyDefs: readonly ContactPropertyRecord[],
  unsubscribeUrl: string,
): PersonalSource {
  const defs = new Map(propertyDefs.map((p) => [p.key, p]));
  const asIs = (s: string) => s;
  return {
    subject: fill(source.subject, contact, defs, unsubscribeUrl, sanitizeSubject),
    ...(source.html !== undefined && { html: fill(source.html, contact, defs, unsubscribeUrl, escapeHtml) }),
    ...(source.text !== undefined && { text: fill(source.text, contact, defs, unsubscribeUrl, asIs) }),
  };
}

/**
 * Personalisation of a broadcast's content for one contact, with Resend's triple-brace
 * placeholders (https://resend.com/docs/dashboard/broadcasts/introduction, "Personalize your
 * content"):
 *
 * - `{{{contact.first_name|fallback}}}`, `{{{contact.last_name|fallback}}}`, `{{{contact.email}}}`
 *   (also the older `{{{FIRST_NAME|…}}}`, `{{{LAST_NAME|…}}}`, `{{{EMAIL}}}`);
 * - `{{{contact.<property key>|fallback}}}`: the contact's value of a custom property, else the
 *   placeholder's fallback, else the property's `fallback_value`;
 * - `{{{RESEND_UNSUBSCRIBE_URL}}}` / `{{{UNSUBSCRIBE_URL}}}`: the recipient's signed link, in html
 *   and text. The subject is rendered at the fan-out, before the email's link exists, and a link
 *   is of no use in a header line anyway: there it is left as written.
 *
 * A value inserted into html is HTML-escaped (a name like `<b>` must not become markup); into
 * text as it is, into the subject with control characters and line breaks as spaces (a header is
 * one line). Anything else between triple braces is left as written. Pure.
 *
 * One render, three callers, so what an API read shows cannot drift from what was sent: the
 * fan-out renders each email's subject (stored on the record, so listings, timelines and webhooks
 * carry it), the worker renders the message, and GET /emails/:id renders html and text again. All
 * three read the contact through {@link ContactValues} taken once at the fan-out and kept on the
 * email, not the contact as it is later (a contact renamed or deleted after the fan-out would
 * otherwise make the read differ from the delivered message).
 */
import type { ContactPropertyRecord, ContactRecord } from '@petrel/contracts';
import { escapeHtml } from '../kernel/html.js';
import { sanitizeSubject } from '../templates/render-template.js';

/** What a placeholder may read of the contact (a deleted contact: its address, nothing else). */
export type PersonalContact = Pick<ContactRecord, 'email' | 'first_name' | 'last_name' | 'properties'>;

/** What a placeholder reads of a property's definition: its fallback value. */
export type PropertyFallback = Pick<ContactPropertyRecord, 'key' | 'fallback_value'>;

/** The parts of an email that are personalised. */
export interface PersonalSource {
  subject: string;
  html?: string;
  text?: string;
}

export type { ContactValues } from '../emails/contact-values.js';
import type { ContactValues } from '../emails/contact-values.js';

const PLACEHOLDER = /\{\{\{\s*([A-Za-z_][\w.-]*)\s*(?:\|([^}]*))?\}\}\}/g;
const LEGACY: Readonly<Record<string, string>> = {
  FIRST_NAME: 'first_name',
  LAST_NAME: 'last_name',
  EMAIL: 'email',
};
const UNSUBSCRIBE = new Set(['RESEND_UNSUBSCRIBE_URL', 'UNSUBSCRIBE_URL']);
const isName = (field: string): field is 'first_name' | 'last_name' =>
  field === 'first_name' || field === 'last_name';

/** The contact field a placeholder name reads (`first_name`, a property key…), or null. */
function contactField(name: string): string | null {
  if (name.startsWith('contact.')) return name.slice('contact.'.length) || null;
  return LEGACY[name] ?? null;
}

/** Every contact field the placeholders of `sources` read (`first_name`, `email`, a property key…). */
export function placeholderFields(sources: readonly (string | null | undefined)[]): ReadonlySet<string> {
  const fields = new Set<string>();
  for (const source of sources) {
    if (!source) continue;
    for (const m of source.matchAll(PLACEHOLDER)) {
      const field = contactField(m[1]!);
      if (field !== null) fields.add(field);
    }
  }
  return fields;
}

/** What `sources` read: the contact at all, and custom properties (whose definitions hold fallbacks). */
export function placeholderNeeds(sources: readonly (string | null | undefined)[]): {
  contact: boolean;
  properties: boolean;
} {
  const fields = placeholderFields(sources);
  return {
    contact: fields.size > 0,
    properties: [...fields].some((f) => f !== 'email' && !isName(f)),
  };
}

/**
 * The {@link ContactValues} of `contact` (null: deleted) for the placeholders' `fields`
 * ({@link placeholderFields} of the content, found once per broadcast); null when there are none
 * (nothing to store).
 */
export function contactValues(
  fields: ReadonlySet<string>,
  contact: PersonalContact | null,
  propertyDefs: readonly PropertyFallback[],
): ContactValues | null {
  if (fields.size === 0) return null;
  const out: ContactValues = {};
  for (const field of fields) {
    if (field === 'email') continue;
    if (isName(field)) {
      const name = contact?.[field];
      if (name) out[field] = name;
      continue;
    }
    const value = contact?.properties[field];
    if (value !== undefined && value !== null && value !== '') {
      (out.properties ??= {})[field] = value;
      continue;
    }
    const fallback = propertyDefs.find((d) => d.key === field)?.fallback_value;
    if (fallback !== undefined && fallback !== null) (out.fallbacks ??= {})[field] = fallback;
  }
  return out;
}

function fill(
  source: string,
  contact: PersonalContact,
  defs: ReadonlyMap<string, PropertyFallback>,
  unsubscribeUrl: string | null,
  encode: (s: string) => string,
): string {
  return source.replace(PLACEHOLDER, (whole, name: string, fallback: string | undefined) => {
    if (UNSUBSCRIBE.has(name)) return unsubscribeUrl === null ? whole : encode(unsubscribeUrl);
    const field = contactField(name);
    if (field === null) return whole;
    const given = fallback?.trim();
    let value: string | null | undefined;
    if (field === 'email') value = contact.email;
    else if (isName(field)) value = contact[field];
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

/** `source` for one recipient: html escaped, text as it is, subject on one line (and link-free). */
export function personalize(
  source: PersonalSource,
  contact: PersonalContact,
  propertyDefs: readonly PropertyFallback[],
  /** Null: the link placeholders are left as written (no link exists yet). */
  unsubscribeUrl: string | null,
): PersonalSource {
  const defs = new Map(propertyDefs.map((p) => [p.key, p]));
  const asIs = (s: string) => s;
  return {
    subject: fill(source.subject, contact, defs, null, sanitizeSubject),
    ...(source.html !== undefined && { html: fill(source.html, contact, defs, unsubscribeUrl, escapeHtml) }),
    ...(source.text !== undefined && { text: fill(source.text, contact, defs, unsubscribeUrl, asIs) }),
  };
}

/**
 * The render of a broadcast's email from its stored {@link ContactValues} (null: none stored,
 * every placeholder renders its fallback) for `recipient`, the email's one address. The fan-out
 * renders the subject with it (`unsubscribeUrl` null), the worker the message, GET /emails/:id
 * the same again.
 */
export function renderPersonal(
  source: PersonalSource,
  recipient: string,
  values: ContactValues | null,
  unsubscribeUrl: string | null,
): PersonalSource {
  const contact: PersonalContact = {
    email: recipient,
    first_name: values?.first_name ?? null,
    last_name: values?.last_name ?? null,
    properties: values?.properties ?? {},
  };
  const fallbacks = Object.entries(values?.fallbacks ?? {}).map(([key, v]) => ({ key, fallback_value: v }));
  return personalize(source, contact, fallbacks, unsubscribeUrl);
}

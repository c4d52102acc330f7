/**
 * Schemas of the header-bound fields of a send: addresses, subject, custom headers, tags and
 * topic_id. Nothing that passes here can carry CR, LF, NUL or another line-breaking character
 * into a header.
 */
import { LIMITS, OWNED_HEADERS } from '@petrel/contracts';
import { z } from 'zod';
import { parseAddress, trimBlanks } from '../kernel/mailbox.js';
import { addIssue, headerSafe, requiredOr, stringWith, userKeyedMap } from './checks.js';
import { HEADER_NAME_PATTERN, MSG, TAG_PATTERN, VALIDATION_RULES } from './rules.js';

/**
 * One address, kept as the client wrote it less surrounding blanks: one check does both, as it
 * runs for every recipient of every email. `empty` says what `''` is: an invalid address (an
 * array element), an absent one (the template or nobody supplies it) or a missing required one.
 */
const addressCheck =
  (empty: 'invalid' | 'absent' | 'required') =>
  (payload: z.core.ParsePayload<string>): void => {
    const value = payload.value;
    if (value === '' && empty !== 'invalid') {
      if (empty === 'required') addIssue(payload, [], MSG.required);
      return;
    }
    const parsed = parseAddress(value);
    if (parsed.ok) payload.value = trimBlanks(value);
    else addIssue(payload, [], MSG.badAddress(parsed.reason));
  };

/** An element of an address array. */
const address = z.string(MSG.string).check(addressCheck('invalid'));

/** An address the request may leave out: absent, null or `''` (the template supplies it). */
export const optionalAddress = z.string(MSG.string).check(addressCheck('absent')).nullish();

/** A required address: absent, null or `''` is `is required`. */
export const requiredAddress = z.string({ error: requiredOr(MSG.string) }).check(addressCheck('required'));

const addressArray = (min: number, max: number) =>
  z.array(address).min(min, MSG.noRecipients).max(max, MSG.tooManyTo);

// The array option comes first in the unions below: it is the common shape (Resend's documented
// examples and the ingest bench send arrays), and a union stops at the first option that passes.

/** `to`: one address or an array of 1..50; required. */
export const toList = z.union([addressArray(1, LIMITS.recipientsInTo), requiredAddress], {
  error: requiredOr(MSG.addressList),
});

/** `cc`, `bcc`, `reply_to`: one address or an array; absent, null or `''` means none. */
export const optionalList = z
  .union([addressArray(0, Infinity), optionalAddress], { error: MSG.addressList })
  .nullish();

/** A `string | string[]` address field as an array (`[]` when absent). */
export const asList = (value: string | string[] | null | undefined): string[] =>
  value === undefined || value === null || value === '' ? [] : typeof value === 'string' ? [value] : value;

const headerTextRule = (value: string): string | undefined =>
  headerSafe(value) ? undefined : MSG.headerUnsafe;

/** A header-bound free-text field (subject): no line-breaking characters; TAB is fine. */
export const headerText = stringWith(headerTextRule);

/** `subject` when required: absent, null or `''` is `is required`. */
export const requiredHeaderText = stringWith(
  (value) => (value === '' ? MSG.required : headerTextRule(value)),
  requiredOr(MSG.string),
);

function headerRule(name: string, value: unknown): string | undefined {
  if (!HEADER_NAME_PATTERN.test(name)) return MSG.headerName;
  if (OWNED_HEADERS.has(name.toLowerCase())) return MSG.ownedHeader;
  if (typeof value !== 'string') return MSG.string;
  return headerSafe(value) ? undefined : MSG.headerUnsafe;
}

/** `headers`: RFC 5322 field names to header-safe string values. */
export const headers = userKeyedMap<string>(headerRule);

const tagPart = (max: number) =>
  stringWith((value) => {
    if (value === '') return MSG.required;
    if (value.length > max) return MSG.maxChars(max);
    return TAG_PATTERN.test(value) ? undefined : MSG.tagCharset;
  }, requiredOr(MSG.string));

/** `tags`: `[{ name, value }]`, both parts 1..256 characters of `[A-Za-z0-9_-]`. */
export const tags = z
  .array(
    z.strictObject(
      { name: tagPart(LIMITS.tagNameLength), value: tagPart(LIMITS.tagValueLength) },
      { error: MSG.object },
    ),
    { error: MSG.array },
  )
  .nullish();

/** `topic_id` (null is absent). Whether the topic exists for the team is the caller's question. */
export const topicId = stringWith((value) => {
  if (value === '' || value.length > VALIDATION_RULES.topicIdMaxLength) return MSG.topicId;
  return headerTextRule(value);
}, MSG.topicId).nullish();

/**
 * What an email can be found by on the list page (GET /emails filters, a Petrel extension), as
 * "terms": each term names one index, a sorted set of the team's email ids by creation time.
 *  - `to:<mailbox>`        every recipient (to, cc and bcc), as `mailboxKey` (case folded, IDN
 *                          domains as A-labels): one mailbox however it was spelled;
 *  - `tag:<name>` and `tag:<name>=<value>` each tag (names and values are ASCII letters, digits,
 *                          `_` and `-`, so `=` cannot be part of either);
 *  - `subject:<word>`      each distinct word of the subject: lower-cased (NFKC), split on
 *                          anything that is not a letter or digit, words of 2+ characters, cut
 *                          to {@link SUBJECT_WORD_MAX} characters, the first
 *                          {@link SUBJECT_WORDS_MAX} words;
 *  - `status:<status>`     the email's current status (moved by the scripts that change it).
 * A query is the AND of its terms: `subject=march invoice` finds subjects holding both words.
 */
import { EMAIL_STATUSES, validationError, type EmailContent, type EmailStatus } from '@petrel/contracts';
import { bareAddress, mailboxKey } from '../kernel/mailbox.js';

export const SUBJECT_WORD_MAX = 40;
export const SUBJECT_WORDS_MAX = 8;

const NOT_WORD = /[^\p{L}\p{N}]+/u;

/** The distinct words of a subject (or of a subject query), in order. */
export function subjectWords(subject: string): string[] {
  const out = new Set<string>();
  for (const raw of subject.normalize('NFKC').toLowerCase().split(NOT_WORD)) {
    // lengths count UTF-16 units, 1 or 2 per character: only a word of 2 units may be one
    // character, only one over SUBJECT_WORD_MAX units may be too long; the others are taken
    // as they are, without spreading them into characters (every email's subject runs here)
    if (raw.length < 2 || (raw.length === 2 && [...raw].length < 2)) continue;
    out.add(raw.length > SUBJECT_WORD_MAX ? [...raw].slice(0, SUBJECT_WORD_MAX).join('') : raw);
    if (out.size >= SUBJECT_WORDS_MAX) break;
  }
  return [...out];
}

/** Every term an email is indexed under when created (its status excepted). */
export function emailSearchTerms(
  content: Pick<EmailContent, 'to' | 'cc' | 'bcc' | 'tags' | 'subject'>,
): string[] {
  const terms = new Set<string>();
  for (const list of [content.to, content.cc, content.bcc]) {
    for (const a of list) terms.add(`to:${mailboxKey(bareAddress(a))}`);
  }
  for (const t of content.tags) {
    terms.add(`tag:${t.name}`);
    terms.add(`tag:${t.name}=${t.value}`);
  }
  for (const w of subjectWords(content.subject)) terms.add(`subject:${w}`);
  return [...terms];
}

export const statusTerm = (status: EmailStatus): string => `status:${status}`;

export interface EmailSearchQuery {
  to?: string | undefined;
  status?: string | undefined;
  tag?: string | undefined;
  subject?: string | undefined;
}

const TAG_PART = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The terms of a list query (empty: no filter, the plain listing). Bad input → 422 naming the
 * parameter.
 */
export function emailSearchQueryTerms(q: EmailSearchQuery): string[] {
  const terms: string[] = [];
  if (q.to !== undefined) {
    const to = bareAddress(q.to);
    if (to === '' || !to.includes('@') || to.length > 320)
      throw validationError('to: must be an email address');
    terms.push(`to:${mailboxKey(to)}`);
  }
  if (q.status !== undefined) {
    if (!(EMAIL_STATUSES as readonly string[]).includes(q.status)) {
      throw validationError(`status: must be one of ${EMAIL_STATUSES.join(', ')}`);
    }
    terms.push(statusTerm(q.status as EmailStatus));
  }
  if (q.tag !== undefined) {
    const eq = q.tag.indexOf('=');
    const name = eq < 0 ? q.tag : q.tag.slice(0, eq);
    const value = eq < 0 ? undefined : q.tag.slice(eq + 1);
    if (!TAG_PART.test(name) || (value !== undefined && !TAG_PART.test(value))) {
      throw validationError(
        'tag: must be `name` or `name=value` (ASCII letters, digits, underscores, dashes)',
      );
    }
    terms.push(value === undefined ? `tag:${name}` : `tag:${name}=${value}`);
  }
  if (q.subject !== undefined) {
    const words = subjectWords(q.subject);
    if (words.length === 0)
      throw validationError('subject: must hold a word of at least 2 letters or digits');
    for (const w of words) terms.push(`subject:${w}`);
  }
  return terms;
}

/**
 * What a thread listing may ask for (GET /inboxes/:x/threads and …/threads/search), read from
 * its query values: folders, labels and read state, and a search's words, correspondents,
 * attachment and date range. Lists are comma-separated (the SDK joins an array with commas).
 * `value` answers a query value given once (the adapter refuses a repeated one). The values are
 * read in a fixed order, so a request with several bad ones always gets the 422 of the first.
 */
import { INBOX_LIMITS, INBOX_MESSAGE_FOLDERS, validationError, type InboxFolder } from '@petrel/contracts';
import { idKey } from '../kernel/ids.js';
import { mailboxKey } from '../kernel/mailbox.js';
import type { PageRequest } from '../kernel/page.js';
import type { ThreadQuery, ThreadSearch } from './ports.js';
import { INBOX_RULES } from './schemas.js';
import { searchWords } from './use-cases.js';

/** A query value by name: the string given once, or undefined when absent. */
export type QueryValue = (name: string) => string | undefined;

/** A thread listing's filters (the page aside). */
export type ThreadFilters = Omit<ThreadQuery, keyof PageRequest>;

/** A search's terms beyond the listing's filters. */
export type ThreadSearchTerms = Omit<ThreadSearch, keyof ThreadQuery>;

function list(value: QueryValue, name: string): string[] | undefined {
  return value(name)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function bool(value: QueryValue, name: string): boolean | undefined {
  const v = value(name);
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw validationError(`${name}: ${INBOX_RULES.boolean}`);
  return v === 'true';
}

function folders(value: QueryValue): InboxFolder[] | undefined {
  const v = list(value, 'folders');
  if (v === undefined) return undefined;
  if (v.length === 0 || v.some((f) => !(INBOX_MESSAGE_FOLDERS as readonly string[]).includes(f)))
    throw validationError(`folders: ${INBOX_RULES.folders}`);
  return v as InboxFolder[];
}

function addresses(value: QueryValue, name: string): string[] {
  const v = list(value, name) ?? [];
  if (v.length > INBOX_LIMITS.searchAddresses)
    throw validationError(`${name}: at most ${INBOX_LIMITS.searchAddresses} addresses`);
  return v.map(mailboxKey);
}

function date(value: QueryValue, name: string): number | undefined {
  const v = value(name);
  if (v === undefined) return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw validationError(`${name}: must be an ISO 8601 date`);
  return ms;
}

/** `folders`, `labels` (ids, any case) and `read`. */
export function threadFilters(value: QueryValue): ThreadFilters {
  const f = folders(value);
  const labels = list(value, 'labels')?.map(idKey);
  const read = bool(value, 'read');
  return {
    ...(f && { folders: f }),
    ...(labels && { labels }),
    ...(read !== undefined && { read }),
  };
}

/** `query` (its words), `start_date` ≤ `end_date`, `has_attachment`, `from`, `to`, `cc`, `bcc`. */
export function threadSearchTerms(value: QueryValue): ThreadSearchTerms {
  const text = value('query') ?? '';
  if (text.length > INBOX_LIMITS.searchQueryChars)
    throw validationError(`query: at most ${INBOX_LIMITS.searchQueryChars} characters`);
  const startMs = date(value, 'start_date');
  const endMs = date(value, 'end_date');
  if (startMs !== undefined && endMs !== undefined && startMs > endMs)
    throw validationError('end_date: must not be before start_date');
  const hasAttachment = bool(value, 'has_attachment');
  return {
    words: [...searchWords(text)],
    from: addresses(value, 'from'),
    to: addresses(value, 'to'),
    cc: addresses(value, 'cc'),
    bcc: addresses(value, 'bcc'),
    ...(hasAttachment !== undefined && { hasAttachment }),
    ...(startMs !== undefined && { startMs }),
    ...(endMs !== undefined && { endMs }),
  };
}

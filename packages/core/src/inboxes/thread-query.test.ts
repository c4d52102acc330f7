import { describe, expect, it } from 'vitest';
import { threadFilters, threadSearchTerms, type QueryValue } from './thread-query.js';

/** The values of a query string (each given once), as the adapter hands them over. */
const q =
  (values: Record<string, string>): QueryValue =>
  (name) =>
    values[name];

/** The 422 message a query gets, or 'ok'. */
function refusal(read: () => unknown): string {
  try {
    read();
    return 'ok';
  } catch (err) {
    expect((err as { statusCode?: number }).statusCode).toBe(422);
    return (err as Error).message;
  }
}

describe('thread listing filters', () => {
  it('reads comma-separated folders and labels (any case, blanks dropped) and read', () => {
    expect(threadFilters(q({ folders: 'inbox, archive,', labels: 'AB-1,,cd', read: 'false' }))).toEqual({
      folders: ['inbox', 'archive'],
      labels: ['ab-1', 'cd'],
      read: false,
    });
    expect(threadFilters(q({}))).toEqual({});
  });

  it('names the parameter and its rule for a bad value', () => {
    expect(refusal(() => threadFilters(q({ folders: 'inbox,drafts' })))).toBe(
      'folders: must be a comma-separated list of inbox, archive, spam, sent, trash',
    );
    expect(refusal(() => threadFilters(q({ folders: ' , ' })))).toMatch(/^folders: /);
    expect(refusal(() => threadFilters(q({ read: 'yes' })))).toBe("read: must be 'true' or 'false'");
  });

  it('names the first bad parameter when several are bad (folders before read)', () => {
    expect(refusal(() => threadFilters(q({ read: 'no', folders: 'nowhere' })))).toMatch(/^folders: /);
  });
});

describe('thread search terms', () => {
  it('reads words, mailboxes (lower case), attachment and dates', () => {
    const terms = threadSearchTerms(
      q({
        query: 'Invoice 42, overdue',
        from: 'Bob@Example.com',
        to: 'a@example.com,b@example.com',
        has_attachment: 'true',
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2026-01-02',
      }),
    );
    expect(terms).toEqual({
      words: ['invoice', '42', 'overdue'],
      from: ['bob@example.com'],
      to: ['a@example.com', 'b@example.com'],
      cc: [],
      bcc: [],
      hasAttachment: true,
      startMs: Date.parse('2026-01-01T00:00:00Z'),
      endMs: Date.parse('2026-01-02'),
    });
    expect(threadSearchTerms(q({}))).toEqual({ words: [], from: [], to: [], cc: [], bcc: [] });
  });

  it('refuses a long query, a bad or reversed date range, a bad boolean and too many addresses', () => {
    expect(refusal(() => threadSearchTerms(q({ query: 'x'.repeat(513) })))).toBe(
      'query: at most 512 characters',
    );
    expect(refusal(() => threadSearchTerms(q({ query: 'x'.repeat(512) })))).toBe('ok');
    expect(refusal(() => threadSearchTerms(q({ start_date: 'last tuesday' })))).toBe(
      'start_date: must be an ISO 8601 date',
    );
    expect(refusal(() => threadSearchTerms(q({ start_date: '2026-02-01', end_date: '2026-01-01' })))).toBe(
      'end_date: must not be before start_date',
    );
    expect(refusal(() => threadSearchTerms(q({ has_attachment: '1' })))).toBe(
      "has_attachment: must be 'true' or 'false'",
    );
    const many = Array.from({ length: 21 }, (_, i) => `u${i}@example.com`).join(',');
    expect(refusal(() => threadSearchTerms(q({ bcc: many })))).toBe('bcc: at most 20 addresses');
  });

  it('names the first bad parameter: query, then dates, then has_attachment, then from, to, cc, bcc', () => {
    const many = Array.from({ length: 21 }, (_, i) => `u${i}@example.com`).join(',');
    const all = {
      query: 'x'.repeat(600),
      start_date: 'never',
      has_attachment: 'maybe',
      cc: many,
      from: many,
    };
    expect(refusal(() => threadSearchTerms(q(all)))).toMatch(/^query: /);
    expect(refusal(() => threadSearchTerms(q({ ...all, query: 'ok' })))).toMatch(/^start_date: /);
    expect(refusal(() => threadSearchTerms(q({ ...all, query: 'ok', start_date: '2026-01-01' })))).toMatch(
      /^has_attachment: /,
    );
    expect(refusal(() => threadSearchTerms(q({ cc: many, from: many })))).toMatch(/^from: /);
  });
});

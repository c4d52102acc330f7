/**
 * Streaming CSV (RFC 4180, plus what spreadsheets write: a UTF-8 BOM, CRLF or LF, blank lines,
 * rows shorter or longer than the header) over a file that arrives in chunks. csv-parse is a
 * pure parser (no I/O); the chunks are fed to it one at a time with its backpressure, so memory
 * holds one chunk and the rows not yet consumed — never the file.
 *
 * Stray quotes are kept as text (`"a"b` reads `"a"b`: the row then fails on its value, not the
 * file). A record csv-parse still cannot read is reported in its place as a bad record and the
 * rest goes on. A quote that is never closed, or a record over
 * CONTACT_IMPORT_POLICY.maxRecordBytes, swallows the rest of the file: that is a
 * {@link CsvFormatError}, which fails the import.
 */
import { once } from 'node:events';
import { parse, type CsvError } from 'csv-parse';
import { CONTACT_IMPORT_POLICY } from './ports.js';

export type CsvItem = { record: string[] } | { bad: string };

/** The file cannot be read as CSV from this point on. */
export class CsvFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvFormatError';
  }
}

/** Errors after which the parser has consumed the rest of the input: nothing more can be read. */
const FATAL = new Set(['CSV_QUOTE_NOT_CLOSED', 'CSV_MAX_RECORD_SIZE']);

/** The records of the CSV in `chunks`, in order (the header first), with bad records in place. */
export async function* csvRecords(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  opts: { maxRecordBytes?: number } = {},
): AsyncGenerator<CsvItem> {
  // csv-parse reports a skipped record through `on_skip` while it parses, ahead of the consumer;
  // counting the records it has emitted by then puts the report back in its place.
  let emitted = 0;
  const skips: { after: number; message: string; fatal: boolean }[] = [];
  const parser = parse({
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    // Any of the usual line ends, even mixed in one file (csv-parse would otherwise take the
    // first one it meets as the only one).
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_records_with_error: true,
    max_record_size: opts.maxRecordBytes ?? CONTACT_IMPORT_POLICY.maxRecordBytes,
    on_record: (record: string[]) => {
      emitted++;
      return record;
    },
    on_skip: (err: CsvError | undefined) => {
      skips.push({
        after: emitted,
        message: err?.message ?? 'unreadable CSV record',
        fatal: err !== undefined && FATAL.has(err.code),
      });
    },
  });
  const stop = new AbortController();
  const feed = (async () => {
    for await (const chunk of chunks) {
      if (stop.signal.aborted) return;
      if (!parser.write(chunk)) await once(parser, 'drain', { signal: stop.signal });
    }
    parser.end();
  })().catch((err: unknown) => {
    if (!stop.signal.aborted) parser.destroy(err instanceof Error ? err : new Error(String(err)));
  });

  let consumed = 0;
  function* skipped(): Generator<CsvItem> {
    while (skips.length > 0 && skips[0]!.after <= consumed) {
      const skip = skips.shift()!;
      if (skip.fatal) throw new CsvFormatError(skip.message);
      yield { bad: skip.message };
    }
  }
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      yield* skipped();
      consumed++;
      yield { record };
    }
    yield* skipped();
  } finally {
    stop.abort();
    parser.destroy();
    await feed;
  }
}

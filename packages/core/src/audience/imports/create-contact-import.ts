/**
 * Use-case: accept an uploaded CSV as a contact import (POST /contacts/imports). The file has
 * been streamed into the import's chunks by the route before this runs (multipart sends it
 * first); here the options are checked — the form fields, the header row against the column
 * map, the segments, topics and contact properties they name — then the import's record is
 * created (`queued`) and its job queued. Only then is the request answered 201, so an accepted
 * import always has its job. A refused one has its chunks deleted.
 */
import { formatIssues, validationError, type ValidationIssue } from '@petrel/contracts';
import type { Clock } from '../../kernel/clock.js';
import { csvRecords } from './csv-records.js';
import { resolveColumnMap } from './map-row.js';
import { parseImportOptions } from './options.js';
import type {
  ContactImportIntake,
  ContactImportQueuePort,
  ContactImportRecord,
  ImportReferences,
} from './ports.js';

export interface CreateContactImportPorts {
  references: ImportReferences;
  intake: ContactImportIntake;
  queue: ContactImportQueuePort;
  clock: Pick<Clock, 'now'>;
}

export interface CreateContactImportCommand {
  teamId: string;
  /** The id the file was uploaded under. */
  importId: string;
  /** The form fields besides `file`, each given once. */
  fields: Readonly<Record<string, string>>;
  /** The file's first bytes (at least its header row, when it has one) and whether that is all of it. */
  head: { bytes: Uint8Array; complete: boolean };
  /** Size of the whole file. */
  bytes: number;
}

/**
 * The header row (the first CSV record) of a file from its first bytes, or why there is none.
 * `complete`: the bytes are the whole file. The header is certain when a second record starts
 * within the bytes, or the bytes are the whole file.
 */
export async function readHeader(head: {
  bytes: Uint8Array;
  complete: boolean;
}): Promise<{ ok: true; header: string[] } | { ok: false; message: string }> {
  const seen: string[][] = [];
  try {
    for await (const item of csvRecords([head.bytes])) {
      if ('bad' in item) return { ok: false, message: `the header row cannot be read: ${item.bad}` };
      seen.push(item.record);
      if (seen.length === 2) break;
    }
  } catch (err) {
    if (seen.length === 0)
      return { ok: false, message: `the header row cannot be read: ${(err as Error).message}` };
  }
  const header = seen[0];
  if (!header) return { ok: false, message: 'is empty: a CSV with a header row is expected' };
  if (seen.length < 2 && !head.complete)
    return { ok: false, message: `the header row is longer than ${head.bytes.length} bytes` };
  return { ok: true, header };
}

export async function createContactImport(
  cmd: CreateContactImportCommand,
  ports: CreateContactImportPorts,
): Promise<{ id: string }> {
  const { teamId, importId } = cmd;
  try {
    const options = parseImportOptions(cmd.fields);
    const head = await readHeader(cmd.head);
    if (!head.ok) throw validationError(`file: ${head.message}`);

    const issues: ValidationIssue[] = [];
    const missing = await ports.references.missing(teamId, {
      segments: options.segments,
      topics: options.topics.map((t) => t.id),
    });
    options.segments.forEach((id, i) => {
      if (missing.segments.includes(id))
        issues.push({ path: ['segments', i, 'id'], message: 'no segment has this id' });
    });
    options.topics.forEach((t, i) => {
      if (missing.topics.includes(t.id))
        issues.push({ path: ['topics', i, 'id'], message: 'no topic has this id' });
    });
    const keys = options.columnMap ? Object.keys(options.columnMap.properties) : [];
    const types = keys.length > 0 ? await ports.references.propertyTypes(teamId, keys) : {};
    const resolved = resolveColumnMap(head.header, options.columnMap, types);
    if (!resolved.ok) issues.push(...resolved.issues);
    if (issues.length > 0 || !resolved.ok) throw validationError(formatIssues(issues));

    const record: ContactImportRecord = {
      id: importId,
      status: 'queued',
      created_at: new Date(ports.clock.now()).toISOString(),
      completed_at: null,
      options: { ...options, columnMap: resolved.map },
      bytes: cmd.bytes,
      error: null,
      rowsDone: 0,
      counts: { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
      failures: [],
    };
    await ports.intake.create(teamId, record);
  } catch (err) {
    await ports.intake.dropChunks(teamId, importId).catch(() => undefined);
    throw err;
  }
  // The record keeps the file from here on; a failed enqueue leaves a `queued` import whose
  // record and file expire (ContactImportsStore's pending TTL) — the client got no 201.
  await ports.queue.enqueue(teamId, importId);
  return { id: importId };
}

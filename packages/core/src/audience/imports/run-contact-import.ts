/**
 * Use-case: run a contact import (the worker's contact-import job). Reads the uploaded CSV chunk
 * by chunk, maps each row with the import's column map and writes the contacts in batches
 * through ContactsImporter.upsertMany, saving a checkpoint (rows consumed, counts, first
 * failures) after every batch.
 *
 * Crash safety: a run that dies (kill -9, lost lock) leaves the last checkpoint. The next run
 * claims the import, reads the file again from the start, passes over the rows the checkpoint
 * covers without mapping or writing them (parsing only: about a second per million rows), and
 * goes on from there. The batch that was being written when the run died is written again;
 * upsertMany is idempotent, so no contact is lost or doubled — only its count may move from
 * `created` to `updated` (or `skipped`). `total` is always the number of rows consumed.
 *
 * Each claim names its run; a checkpoint or the end of a run that has been superseded (its job
 * taken over by another worker) is refused, and that run stops (ImportSupersededError).
 *
 * Memory: one chunk of the file, the parser's buffer and one batch of rows.
 */
import type { ContactImportCounts } from '@petrel/contracts';
import type { ContactsImporter, ImportedContact } from '../ports.js';
import { CONTACT_IMPORT_MACHINE, guardAllows } from '../../transitions/index.js';
import { CsvFormatError, csvRecords } from './csv-records.js';
import { ColumnMapError, compileColumnMap, mapRow, type CompiledColumnMap } from './map-row.js';
import {
  CONTACT_IMPORT_POLICY,
  type ContactImportObserver,
  type ContactImportRuns,
  type ImportFailure,
  type ImportProgress,
} from './ports.js';
import type { Clock } from '../../kernel/clock.js';

export interface RunContactImportPorts {
  imports: ContactImportRuns;
  contacts: ContactsImporter;
  observer?: ContactImportObserver;
  /** The claim's and the outcome's wall time; the progress rate's durations (monotonic). */
  clock: Clock;
  /** Asked between batches: true stops the run after its checkpoint (graceful shutdown). */
  shouldStop?: () => boolean;
  /** Overrides of CONTACT_IMPORT_POLICY (tests). */
  policy?: Partial<Record<'batchRows' | 'progressEvery' | 'failuresKept', number>>;
}

export type RunContactImportResult =
  /** The import is gone (deleted, or its record expired before a worker got to it). */
  | { outcome: 'missing' }
  /** It had ended already (a job run again): nothing done. */
  | { outcome: 'already_done' }
  | { outcome: 'completed' | 'failed'; counts: ContactImportCounts; error: string | null }
  /** Stopped at a checkpoint on request (shouldStop); run it again to go on. */
  | { outcome: 'paused'; rowsDone: number };

/** Another run has taken the import over: this one must stop without writing more. */
export class ImportSupersededError extends Error {
  constructor(importId: string) {
    super(`contact import ${importId} was taken over by another run`);
    this.name = 'ImportSupersededError';
  }
}

const zeroCounts = (): ContactImportCounts => ({ total: 0, created: 0, updated: 0, skipped: 0, failed: 0 });

export async function runContactImport(
  cmd: { teamId: string; importId: string; runId: string },
  ports: RunContactImportPorts,
): Promise<RunContactImportResult> {
  const { teamId, importId, runId } = cmd;
  const { clock } = ports;
  const policy = { ...CONTACT_IMPORT_POLICY, ...ports.policy };
  const record = await ports.imports.claim(teamId, importId, runId, clock.now());
  if (!record) return { outcome: 'missing' };
  if (guardAllows(CONTACT_IMPORT_MACHINE.guards.finished, record.status)) return { outcome: 'already_done' };

  const resumeAt = record.rowsDone;
  if (resumeAt > 0) ports.observer?.resumed?.({ importId, rowsDone: resumeAt });
  const counts: ContactImportCounts = { ...zeroCounts(), ...record.counts, total: resumeAt };
  const failures: ImportFailure[] = [...record.failures];
  const { options } = record;
  const writeOptions = {
    onConflict: options.onConflict,
    segments: options.segments,
    topics: options.topics,
  };
  const started = clock.monotonicMs();
  let row = 0; // data rows consumed in this file, the header excluded
  let batch: ImportedContact[] = [];
  let batchRows = 0;
  let nextProgress = Math.floor(resumeAt / policy.progressEvery + 1) * policy.progressEvery;

  const progress = (): ImportProgress => ({ rowsDone: row, counts: { ...counts, total: row }, failures });
  const failRow = (message: string) => {
    counts.failed++;
    if (failures.length < policy.failuresKept) failures.push({ row, message });
  };
  const flush = async () => {
    if (batch.length > 0) {
      const done = await ports.contacts.upsertMany(teamId, batch, writeOptions);
      counts.created += done.created;
      counts.updated += done.updated;
      counts.skipped += done.skipped;
      counts.failed += done.failed;
    }
    batch = [];
    batchRows = 0;
    if (!(await ports.imports.checkpoint(teamId, importId, runId, progress())))
      throw new ImportSupersededError(importId);
    if (row >= nextProgress) {
      const seconds = Math.max(1e-3, (clock.monotonicMs() - started) / 1000);
      ports.observer?.progress({
        importId,
        rowsDone: row,
        rowsPerSecond: Math.round((row - resumeAt) / seconds),
        counts: { ...counts, total: row },
      });
      nextProgress = Math.floor(row / policy.progressEvery + 1) * policy.progressEvery;
    }
  };
  const finish = async (status: 'completed' | 'failed', error: string | null) => {
    const ended = await ports.imports.finish(teamId, importId, runId, {
      ...progress(),
      status,
      error,
      completedAtMs: clock.now(),
    });
    if (!ended) throw new ImportSupersededError(importId);
    return { outcome: status, counts: { ...counts, total: row }, error } as const;
  };

  let map: CompiledColumnMap | undefined;
  try {
    for await (const item of csvRecords(ports.imports.chunks(teamId, importId))) {
      if (!map) {
        // The first record is the header (a bad one cannot be: the API read it at upload).
        if ('bad' in item) return await finish('failed', `the header row cannot be read: ${item.bad}`);
        map = compileColumnMap(item.record, options.columnMap);
        continue;
      }
      row++;
      if (row <= resumeAt) continue;
      if ('bad' in item) failRow(`not a readable CSV record: ${item.bad}`);
      else {
        const mapped = mapRow(item.record, map);
        if (mapped.ok) batch.push(mapped.contact);
        else failRow(mapped.message);
      }
      if (++batchRows >= policy.batchRows) {
        await flush();
        if (ports.shouldStop?.()) return { outcome: 'paused', rowsDone: row };
      }
    }
  } catch (err) {
    if (err instanceof CsvFormatError) {
      await flush();
      return await finish('failed', `the CSV cannot be read after data row ${row}: ${err.message}`);
    }
    if (err instanceof ColumnMapError) return await finish('failed', err.message);
    throw err;
  }
  if (!map) return await finish('failed', 'the file is empty: it has no header row');
  await flush();
  return await finish('completed', null);
}

/**
 * The ports of the contact-import use-cases: the import's record (its options, progress and
 * outcome), the uploaded file kept in chunks, the references an import names (segments, topics,
 * contact properties), the job queue and the progress observer. packages/store implements the
 * Redis ones (ContactImportsStore), packages/queue the queue; packages/testing has in-memory
 * versions for the unit tests.
 */
import type {
  ContactImportCounts,
  ContactImportStatus,
  ContactPropertyType,
  Subscription,
} from '@petrel/contracts';
import type { ImportConflict } from '../ports.js';

/** What a CSV column map may type a property as (Resend's column_map: `string | number | boolean`). */
export const IMPORT_PROPERTY_TYPES = ['string', 'number', 'boolean'] as const;
export type ImportPropertyType = (typeof IMPORT_PROPERTY_TYPES)[number];

/** Contact fields and properties → CSV column names (the `column_map` form field, parsed). */
export interface ImportColumnMap {
  email: string;
  first_name?: string;
  last_name?: string;
  unsubscribed?: string;
  /**
   * Property key → its column, how the cell is read (`type`), and — once resolved at upload —
   * the contact property's declared type (`property`), which decides what is stored.
   */
  properties: Record<string, { column: string; type?: ImportPropertyType; property?: ContactPropertyType }>;
}

/** The options of an import, as validated at upload and kept in its record. */
export interface ContactImportOptions {
  columnMap: ImportColumnMap;
  onConflict: ImportConflict;
  segments: string[];
  topics: { id: string; subscription: Subscription }[];
}

/** A row that could not be imported: its data-row number (1 = the row after the header) and why. */
export interface ImportFailure {
  row: number;
  message: string;
}

/** Where a run stands: rows of the file consumed (imported, skipped or failed) and what they did. */
export interface ImportProgress {
  rowsDone: number;
  counts: ContactImportCounts;
  /** The first failing rows (at most CONTACT_IMPORT_POLICY.failuresKept), for the GET response. */
  failures: ImportFailure[];
}

/** How a run ended: its last progress, the status, why it failed, and when (epoch ms). */
export interface ImportOutcome extends ImportProgress {
  status: 'completed' | 'failed';
  error: string | null;
  completedAtMs: number;
}

/** An import's record. `counts.total` is the number of rows consumed so far (== rowsDone). */
export interface ContactImportRecord extends ImportProgress {
  id: string;
  status: ContactImportStatus;
  created_at: string;
  completed_at: string | null;
  options: ContactImportOptions;
  /** Size of the uploaded file in bytes. */
  bytes: number;
  /** Why a failed import failed; null otherwise. */
  error: string | null;
}

/** The Redis side of an import's record and file, as the worker's run uses it. */
export interface ContactImportRuns {
  /**
   * Takes the import for the run `runId` (status `in_progress`; any earlier run loses it, so its
   * next checkpoint is refused) and returns the record with the last checkpoint, or null when the
   * import is gone. `nowMs` is the run's start (epoch ms).
   */
  claim(teamId: string, importId: string, runId: string, nowMs: number): Promise<ContactImportRecord | null>;
  /** Saves progress after a batch; false when another run has taken the import over. */
  checkpoint(teamId: string, importId: string, runId: string, progress: ImportProgress): Promise<boolean>;
  /**
   * Ends the import (completed or failed) and deletes its file, in one step; false when another
   * run owns it.
   */
  finish(teamId: string, importId: string, runId: string, outcome: ImportOutcome): Promise<boolean>;
  /** The file's chunks in order, read one at a time. */
  chunks(teamId: string, importId: string): AsyncIterable<Uint8Array>;
}

/** What an import's options name, checked before it is accepted. */
export interface ImportReferences {
  /** The ids among `segments` / `topics` that name nothing in the team. */
  missing(
    teamId: string,
    refs: { segments: readonly string[]; topics: readonly string[] },
  ): Promise<{ segments: string[]; topics: string[] }>;
  /** The type of each contact property key, or null for a key the team has not defined. */
  propertyTypes(teamId: string, keys: readonly string[]): Promise<Record<string, ContactPropertyType | null>>;
}

/** The API side: an uploaded file becomes a queued import. */
export interface ContactImportIntake {
  /**
   * Creates the import's record (status `queued`, listed) for a file already uploaded under
   * `importId`, keeping the file until the import ends.
   */
  create(teamId: string, record: ContactImportRecord): Promise<void>;
  /** Deletes an uploaded file that will not be imported (a refused request). */
  dropChunks(teamId: string, importId: string): Promise<void>;
}

/** Queues the run of an import (job id = import id: queueing it twice makes one job). */
export interface ContactImportQueuePort {
  enqueue(teamId: string, importId: string): Promise<void>;
}

/** Told about a run's progress (the worker logs it). */
export interface ContactImportObserver {
  /** Every CONTACT_IMPORT_POLICY.progressEvery rows; `rowsPerSecond` over this run. */
  progress(info: {
    importId: string;
    rowsDone: number;
    rowsPerSecond: number;
    counts: ContactImportCounts;
  }): void;
  resumed?(info: { importId: string; rowsDone: number }): void;
}

/** Named policy values of imports. */
export const CONTACT_IMPORT_POLICY = {
  /**
   * Rows consumed per batch: one `upsertMany` and one checkpoint each. Small enough that a batch
   * is a few hundred KiB in memory and one short Lua call, large enough that round trips do not
   * dominate (1,000 rows ≈ 1 ms of Redis per call).
   */
  batchRows: 1_000,
  /** A progress log line every this many rows. */
  progressEvery: 50_000,
  /** Failing rows kept in the record (the first ones), so a user can see why. */
  failuresKept: 10,
  /** Largest CSV record (one row) in bytes: a longer one (or a quote never closed) fails the import. */
  maxRecordBytes: 1024 * 1024,
  /** Largest header row the API reads to check the column map (bytes). */
  maxHeaderBytes: 64 * 1024,
} as const;

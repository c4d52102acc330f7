/**
 * In-memory implementations of the contact-import ports (packages/core/src/audience/imports):
 * import records with their chunked files and run fencing (as ContactImportsStore keeps them in
 * Redis), a contacts importer with the upsert / skip semantics of ContactsImporter, the
 * references an import may name, and a queue that remembers its jobs. Parts can be told to fail
 * (the importer after N batches: a worker killed mid-import).
 */
import type {
  ContactImportIntake,
  ContactImportQueuePort,
  ContactImportRecord,
  ContactImportRuns,
  ContactsImporter,
  ImportBatchCounts,
  ImportOutcome,
  ImportProgress,
  ImportReferences,
  ImportedContact,
} from '@petrel/core';
import { CONTACT_IMPORT_MACHINE, guardAllows, mailboxKey } from '@petrel/core';
import type { ContactPropertyType, Subscription } from '@petrel/contracts';

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryContactImports implements ContactImportRuns, ContactImportIntake {
  readonly records = new Map<string, ContactImportRecord & { owner?: string }>();
  readonly files = new Map<string, Uint8Array[]>();
  /** Chunks read so far by all runs (tests check a resumed run reads the file again). */
  chunksRead = 0;

  private key(teamId: string, importId: string): string {
    return `${teamId}/${importId}`;
  }

  /** Upload `data` as the file of `importId`, cut into chunks of `chunkBytes`. */
  upload(teamId: string, importId: string, data: Uint8Array | string, chunkBytes = 256 * 1024): void {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += chunkBytes) chunks.push(bytes.slice(at, at + chunkBytes));
    this.files.set(this.key(teamId, importId), chunks);
  }

  get(teamId: string, importId: string): ContactImportRecord | undefined {
    const r = this.records.get(this.key(teamId, importId));
    return r && clone(r);
  }

  async create(teamId: string, record: ContactImportRecord): Promise<void> {
    this.records.set(this.key(teamId, record.id), clone(record));
  }

  async dropChunks(teamId: string, importId: string): Promise<void> {
    this.files.delete(this.key(teamId, importId));
  }

  /** As the store's claim, but no `started_at` is kept (the port's record has none), so `_nowMs` is unused. */
  async claim(
    teamId: string,
    importId: string,
    runId: string,
    _nowMs: number,
  ): Promise<ContactImportRecord | null> {
    const r = this.records.get(this.key(teamId, importId));
    if (!r) return null;
    if (guardAllows(CONTACT_IMPORT_MACHINE.guards.unfinished, r.status)) {
      r.status = 'in_progress';
      r.owner = runId;
    }
    return clone(r);
  }

  async checkpoint(
    teamId: string,
    importId: string,
    runId: string,
    progress: ImportProgress,
  ): Promise<boolean> {
    const r = this.records.get(this.key(teamId, importId));
    if (!r || r.owner !== runId) return false;
    Object.assign(r, clone(progress));
    return true;
  }

  async finish(teamId: string, importId: string, runId: string, outcome: ImportOutcome): Promise<boolean> {
    const r = this.records.get(this.key(teamId, importId));
    if (!r || r.owner !== runId) return false;
    const { completedAtMs, ...rest } = outcome;
    Object.assign(r, clone(rest), { completed_at: new Date(completedAtMs).toISOString() });
    this.files.delete(this.key(teamId, importId));
    return true;
  }

  async *chunks(teamId: string, importId: string): AsyncIterable<Uint8Array> {
    const file = this.files.get(this.key(teamId, importId)) ?? [];
    for (const chunk of file) {
      this.chunksRead++;
      yield chunk;
    }
  }
}

interface MemoryContact extends ImportedContact {
  segments: Set<string>;
  topics: Map<string, Subscription>;
}

/** Contacts by mailbox, written only through `upsertMany`. */
export class MemoryContactsImporter implements ContactsImporter {
  readonly contacts = new Map<string, MemoryContact>();
  /** Batches written so far. */
  calls = 0;
  /** Throw (a crash) on the call with this 1-based number, once. */
  crashOnCall: number | undefined;

  async upsertMany(
    teamId: string,
    rows: readonly ImportedContact[],
    options: Parameters<ContactsImporter['upsertMany']>[2],
  ): Promise<ImportBatchCounts> {
    this.calls++;
    const counts: ImportBatchCounts = { created: 0, updated: 0, skipped: 0, failed: 0 };
    // A crash mid-batch: half the batch is written, then the process dies.
    const crash = this.crashOnCall === this.calls;
    const written = crash ? rows.slice(0, Math.ceil(rows.length / 2)) : rows;
    for (const row of written) {
      const key = `${teamId}/${mailboxKey(row.email)}`;
      const existing = this.contacts.get(key);
      if (existing && options.onConflict === 'skip') {
        counts.skipped++;
        continue;
      }
      const contact: MemoryContact = existing ?? { email: row.email, segments: new Set(), topics: new Map() };
      if (row.first_name !== undefined) contact.first_name = row.first_name;
      if (row.last_name !== undefined) contact.last_name = row.last_name;
      if (row.unsubscribed !== undefined) contact.unsubscribed = row.unsubscribed;
      if (row.properties) contact.properties = { ...contact.properties, ...row.properties };
      for (const s of options.segments) contact.segments.add(s);
      for (const t of options.topics) contact.topics.set(t.id, t.subscription);
      this.contacts.set(key, contact);
      if (existing) counts.updated++;
      else counts.created++;
    }
    if (crash) {
      this.crashOnCall = undefined;
      throw new Error('worker killed mid-batch');
    }
    return counts;
  }

  /** The contact of `email` in `teamId`. */
  find(teamId: string, email: string): MemoryContact | undefined {
    return this.contacts.get(`${teamId}/${mailboxKey(email)}`);
  }
}

/** Segments, topics and contact properties a team has, for the import's up-front checks. */
export class MemoryImportReferences implements ImportReferences {
  readonly segments = new Set<string>();
  readonly topics = new Set<string>();
  readonly properties = new Map<string, ContactPropertyType>();

  async missing(
    _teamId: string,
    refs: { segments: readonly string[]; topics: readonly string[] },
  ): Promise<{ segments: string[]; topics: string[] }> {
    return {
      segments: refs.segments.filter((s) => !this.segments.has(s)),
      topics: refs.topics.filter((t) => !this.topics.has(t)),
    };
  }

  async propertyTypes(
    _teamId: string,
    keys: readonly string[],
  ): Promise<Record<string, ContactPropertyType | null>> {
    return Object.fromEntries(keys.map((k) => [k, this.properties.get(k) ?? null]));
  }
}

/** The queue: each import id once (BullMQ's job-id rule). */
export class MemoryImportQueue implements ContactImportQueuePort {
  readonly jobs: { teamId: string; importId: string }[] = [];
  async enqueue(teamId: string, importId: string): Promise<void> {
    if (!this.jobs.some((j) => j.importId === importId)) this.jobs.push({ teamId, importId });
  }
}

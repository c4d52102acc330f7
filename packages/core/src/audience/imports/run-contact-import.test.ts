import { describe, expect, it } from 'vitest';
import { MemoryContactImports, MemoryContactsImporter } from '@petrel/testing';
import { ImportSupersededError, runContactImport, type RunContactImportPorts } from './run-contact-import.js';
import type { ContactImportOptions, ContactImportRecord } from './ports.js';
import type { Clock } from '../../kernel/clock.js';

const TEAM = 'team-1';
const NOW = Date.UTC(2030, 0, 2, 3, 4, 5);
/** A clock that stands still: the wall time NOW, a monotonic reading that moves 1 ms a read. */
const clock = (): Clock => {
  let ms = 0;
  return { now: () => NOW, monotonicMs: () => ++ms };
};
const options = (over: Partial<ContactImportOptions> = {}): ContactImportOptions => ({
  columnMap: { email: 'email', first_name: 'first_name', properties: {} },
  onConflict: 'upsert',
  segments: ['seg-1'],
  topics: [{ id: 'top-1', subscription: 'opt_in' }],
  ...over,
});

function queued(id: string, opts = options()): ContactImportRecord {
  return {
    id,
    status: 'queued',
    created_at: new Date(0).toISOString(),
    completed_at: null,
    options: opts,
    bytes: 0,
    error: null,
    rowsDone: 0,
    counts: { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
    failures: [],
  };
}

function setup(csv: string, opts = options(), chunkBytes = 64) {
  const imports = new MemoryContactImports();
  const contacts = new MemoryContactsImporter();
  void imports.create(TEAM, queued('imp-1', opts));
  imports.upload(TEAM, 'imp-1', csv, chunkBytes);
  const progress: number[] = [];
  const ports: RunContactImportPorts = {
    imports,
    contacts,
    observer: { progress: (p) => progress.push(p.rowsDone) },
    clock: clock(),
    policy: { batchRows: 10, progressEvery: 25 },
  };
  return { imports, contacts, ports, progress };
}

const csvOf = (n: number, row = (i: number) => `u${i}@example.com,U${i}`) =>
  ['email,first_name', ...Array.from({ length: n }, (_, i) => row(i))].join('\n') + '\n';

describe('runContactImport', () => {
  it('imports valid, duplicate and invalid rows with the right counts and applies segments and topics', async () => {
    const csv = 'email,first_name\na@x.test,A\nnot-an-email,B\nA@X.TEST,A again\n,empty\nb@x.test,B\n';
    const { imports, contacts, ports } = setup(csv);
    const res = await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports);
    expect(res).toEqual({
      outcome: 'completed',
      counts: { total: 5, created: 2, updated: 1, skipped: 0, failed: 2 },
      error: null,
    });
    const rec = imports.get(TEAM, 'imp-1')!;
    expect(rec.status).toBe('completed');
    expect(rec.completed_at).toBe(new Date(NOW).toISOString());
    expect(rec.failures).toEqual([
      { row: 2, message: 'email: "not-an-email" is not a valid email address' },
      { row: 4, message: 'email: is empty' },
    ]);
    expect(imports.files.size).toBe(0); // chunks deleted at the end
    const a = contacts.find(TEAM, 'a@x.test')!;
    expect(a.first_name).toBe('A again');
    expect([...a.segments]).toEqual(['seg-1']);
    expect(Object.fromEntries(a.topics)).toEqual({ 'top-1': 'opt_in' });
  });

  it('on_conflict skip leaves existing contacts alone and counts them skipped', async () => {
    const { contacts, ports } = setup(
      'email,first_name\na@x.test,A\na@x.test,Other\n',
      options({ onConflict: 'skip' }),
    );
    const res = await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports);
    expect(res).toMatchObject({ counts: { total: 2, created: 1, updated: 0, skipped: 1, failed: 0 } });
    expect(contacts.find(TEAM, 'a@x.test')!.first_name).toBe('A');
  });

  it('checkpoints after every batch and reports progress every N rows', async () => {
    const { imports, ports, progress } = setup(csvOf(57));
    const checkpoints: number[] = [];
    const checkpoint = imports.checkpoint.bind(imports);
    imports.checkpoint = async (t, i, r, p) => {
      checkpoints.push(p.rowsDone);
      return checkpoint(t, i, r, p);
    };
    await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports);
    expect(checkpoints).toEqual([10, 20, 30, 40, 50, 57]);
    expect(progress).toEqual([30, 50]);
  });

  it('resumes after a crash at the last checkpoint: every row once, total = rows', async () => {
    const { imports, contacts, ports } = setup(csvOf(95));
    contacts.crashOnCall = 4; // the 4th batch dies half written
    await expect(runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports)).rejects.toThrow(
      'worker killed',
    );
    const mid = imports.get(TEAM, 'imp-1')!;
    expect(mid.status).toBe('in_progress');
    expect(mid.rowsDone).toBe(30);
    expect(contacts.contacts.size).toBe(35); // 30 + half of the 4th batch

    const writes: number[] = [];
    const upsert = contacts.upsertMany.bind(contacts);
    contacts.upsertMany = async (t, rows, o) => {
      writes.push(rows.length);
      return upsert(t, rows, o);
    };
    const resumed: number[] = [];
    const res = await runContactImport(
      { teamId: TEAM, importId: 'imp-1', runId: 'r2' },
      { ...ports, observer: { progress: () => undefined, resumed: (r) => resumed.push(r.rowsDone) } },
    );
    expect(resumed).toEqual([30]);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(65); // rows 31..95 only
    expect(contacts.contacts.size).toBe(95);
    // the half-written batch was replayed: its first 5 rows now count as updated
    expect(res).toMatchObject({
      outcome: 'completed',
      counts: { total: 95, created: 90, updated: 5, failed: 0 },
    });
    const c = imports.get(TEAM, 'imp-1')!.counts;
    expect(c.created + c.updated + c.skipped + c.failed).toBe(c.total);
  });

  it('a run that was taken over stops at its next checkpoint', async () => {
    const { imports, ports } = setup(csvOf(40));
    const checkpoint = imports.checkpoint.bind(imports);
    let n = 0;
    imports.checkpoint = async (t, i, r, p) => {
      if (++n === 2) await imports.claim(t, i, 'r2', NOW); // another worker took the job over
      return checkpoint(t, i, r, p);
    };
    await expect(
      runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports),
    ).rejects.toBeInstanceOf(ImportSupersededError);
    expect(imports.get(TEAM, 'imp-1')!.rowsDone).toBe(10);
  });

  it('pauses at a checkpoint when asked to stop, and the next run goes on from there', async () => {
    const { imports, contacts, ports } = setup(csvOf(35));
    const paused = await runContactImport(
      { teamId: TEAM, importId: 'imp-1', runId: 'r1' },
      { ...ports, shouldStop: () => true },
    );
    expect(paused).toEqual({ outcome: 'paused', rowsDone: 10 });
    const done = await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r2' }, ports);
    expect(done).toMatchObject({ outcome: 'completed', counts: { total: 35, created: 35 } });
    expect(contacts.contacts.size).toBe(35);
    expect(imports.get(TEAM, 'imp-1')!.status).toBe('completed');
  });

  it('a finished or missing import is left alone', async () => {
    const { ports } = setup(csvOf(3));
    await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports);
    expect(await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r2' }, ports)).toEqual({
      outcome: 'already_done',
    });
    expect(await runContactImport({ teamId: TEAM, importId: 'nope', runId: 'r3' }, ports)).toEqual({
      outcome: 'missing',
    });
  });

  it('fails the import, keeping what was imported, when the CSV breaks off (a quote never closed)', async () => {
    const { imports, contacts, ports } = setup(
      'email\na@x.test\nb@x.test\n"c@x.test\nd@x.test\n',
      options({ columnMap: { email: 'email', properties: {} } }),
    );
    const res = await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports);
    expect(res).toMatchObject({ outcome: 'failed', counts: { total: 2, created: 2 } });
    expect(res.outcome === 'failed' && res.error).toMatch(/after data row 2: Quote Not Closed/);
    expect(contacts.contacts.size).toBe(2);
    expect(imports.get(TEAM, 'imp-1')!.error).toMatch(/Quote Not Closed/);
  });

  it('fails an import whose file lacks a mapped column', async () => {
    const { ports } = setup('email\na@x.test\n');
    expect(await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports)).toMatchObject({
      outcome: 'failed',
      error: 'no column "first_name" in the file\'s header',
    });
  });

  it('fails an empty file', async () => {
    const { ports } = setup('');
    expect(await runContactImport({ teamId: TEAM, importId: 'imp-1', runId: 'r1' }, ports)).toMatchObject({
      outcome: 'failed',
      error: 'the file is empty: it has no header row',
    });
  });

  it('keeps only the first failures', async () => {
    const { imports, ports } = setup(csvOf(30, (i) => `bad${i},x`));
    await runContactImport(
      { teamId: TEAM, importId: 'imp-1', runId: 'r1' },
      { ...ports, policy: { failuresKept: 3 } },
    );
    const rec = imports.get(TEAM, 'imp-1')!;
    expect(rec.counts).toEqual({ total: 30, created: 0, updated: 0, skipped: 0, failed: 30 });
    expect(rec.failures.map((f) => f.row)).toEqual([1, 2, 3]);
  });
});

/**
 * The contract of core's ContactImportRuns and ContactImportIntake
 * (packages/core/src/audience/imports/ports.ts), run against the in-memory port and the Redis
 * store: an uploaded file read back in order, the record created queued, and run fencing — the
 * latest claim owns the import, so an earlier run's checkpoint and finish are refused.
 */
import { expect, it } from 'vitest';
import {
  newId,
  type ContactImportIntake,
  type ContactImportRecord,
  type ContactImportRuns,
} from '@petrel/core';
import { describePortContract, type MakePort } from './kit.js';

export interface ContactImportsContractPort {
  runs: ContactImportRuns & ContactImportIntake;
  /** Appends a chunk to the import's file, as the API's upload does. */
  upload(teamId: string, importId: string, chunk: Uint8Array): Promise<void>;
  /** The import's record as stored (the API's GET), or null. */
  read(teamId: string, importId: string): Promise<ContactImportRecord | null>;
}

const NOW = Date.parse('2030-01-01T00:00:00.000Z');
const NOW_ISO = new Date(NOW).toISOString();

/** A queued import of a 6-byte file, as the API creates it. */
export function importRecord(id: string): ContactImportRecord {
  return {
    id,
    status: 'queued',
    created_at: NOW_ISO,
    completed_at: null,
    options: {
      columnMap: { email: 'email', first_name: 'first_name', properties: {} },
      onConflict: 'upsert',
      segments: [],
      topics: [],
    },
    bytes: 6,
    error: null,
    rowsDone: 0,
    counts: { total: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
    failures: [],
  };
}

async function readFile(port: ContactImportsContractPort, teamId: string, importId: string): Promise<string> {
  let out = '';
  for await (const chunk of port.runs.chunks(teamId, importId)) out += Buffer.from(chunk).toString('utf8');
  return out;
}

const progress = (rows: number) => ({
  rowsDone: rows,
  counts: { total: rows, created: rows, updated: 0, skipped: 0, failed: 0 },
  failures: [],
});

export function describeContactImportsContract(
  name: string,
  makePort: MakePort<ContactImportsContractPort>,
): void {
  describePortContract(`ContactImportRuns and ContactImportIntake contract: ${name}`, makePort, (setup) => {
    it('an upload reads back in order; a created import is queued; dropChunks forgets a refused file', async () => {
      const { port, team, other } = setup();
      const id = newId();
      for (const part of ['email\n', 'a@x.test\n', 'b@x.test\n'])
        await port.upload(team, id, Buffer.from(part));
      expect(await readFile(port, team, id)).toBe('email\na@x.test\nb@x.test\n');
      expect(await readFile(port, other, id)).toBe('');
      await port.runs.create(team, importRecord(id));
      expect(await port.read(team, id)).toEqual(importRecord(id));
      expect(await port.read(other, id)).toBeNull();
      const refused = newId();
      await port.upload(team, refused, Buffer.from('x'));
      await port.runs.dropChunks(team, refused);
      expect(await readFile(port, team, refused)).toBe('');
    });

    it('claim: the import in progress with its last checkpoint; unknown or foreign is null', async () => {
      const { port, team, other } = setup();
      const id = newId();
      await port.runs.create(team, importRecord(id));
      expect(await port.runs.claim(other, id, 'run-x', NOW)).toBeNull();
      expect(await port.runs.claim(team, newId(), 'run-x', NOW)).toBeNull();
      const claimed = await port.runs.claim(team, id, 'run-1', NOW);
      expect(claimed).toMatchObject({ id, status: 'in_progress', rowsDone: 0 });
      expect(await port.runs.checkpoint(team, id, 'run-1', progress(10))).toBe(true);
      const resumed = await port.runs.claim(team, id, 'run-2', NOW);
      expect(resumed).toMatchObject({ status: 'in_progress', ...progress(10) });
    });

    it('the latest claim owns the import: the earlier run is refused, the owner checkpoints and finishes once', async () => {
      const { port, team } = setup();
      const id = newId();
      await port.upload(team, id, Buffer.from('email\n'));
      await port.runs.create(team, importRecord(id));
      await port.runs.claim(team, id, 'run-1', NOW);
      await port.runs.claim(team, id, 'run-2', NOW);
      expect(await port.runs.checkpoint(team, id, 'run-1', progress(5))).toBe(false);
      expect(await port.runs.checkpoint(team, id, 'run-2', progress(7))).toBe(true);
      const outcome = { ...progress(9), status: 'completed' as const, error: null, completedAtMs: NOW };
      expect(await port.runs.finish(team, id, 'run-1', outcome)).toBe(false);
      expect(await port.read(team, id)).toMatchObject({ status: 'in_progress', ...progress(7) });
      expect(await port.runs.finish(team, id, 'run-2', outcome)).toBe(true);
      expect(await port.read(team, id)).toMatchObject({
        status: 'completed',
        completed_at: NOW_ISO,
        error: null,
        ...progress(9),
      });
      expect(await readFile(port, team, id)).toBe('');
      // a finished import is not taken again: a late job sees it as it ended
      expect(await port.runs.claim(team, id, 'run-3', NOW)).toMatchObject({ status: 'completed' });
      expect(await port.runs.checkpoint(team, id, 'run-3', progress(1))).toBe(false);
    });
  });
}

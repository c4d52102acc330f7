import { describe, expect, it } from 'vitest';
import {
  MemoryContactImports,
  MemoryImportQueue,
  MemoryImportReferences,
  validationRefusalOf,
} from '@petrel/testing';
import { createContactImport, readHeader } from './create-contact-import.js';

const TEAM = 'team-1';
const NOW = Date.parse('2026-01-02T03:04:05.000Z');
const CSV = 'Email,First Name,Plan\na@x.test,A,pro\n';
const enc = new TextEncoder();

function setup() {
  const intake = new MemoryContactImports();
  const references = new MemoryImportReferences();
  references.segments.add('seg-1');
  references.topics.add('top-1');
  references.properties.set('plan', 'string');
  const queue = new MemoryImportQueue();
  const clock = { now: () => NOW };
  return { intake, references, queue, ports: { intake, references, queue, clock } };
}

const head = (text: string, complete = true) => ({ bytes: enc.encode(text), complete });

/** The command for an upload whose whole file is `csv`. */
const command = (importId: string, fields: Record<string, string>, csv: string) => ({
  teamId: TEAM,
  importId,
  fields,
  head: head(csv),
  bytes: enc.encode(csv).length,
});

describe('readHeader', () => {
  it('is certain once a second record starts or the file ends', async () => {
    expect(await readHeader(head('email,name\na@x.test', false))).toEqual({
      ok: true,
      header: ['email', 'name'],
    });
    expect(await readHeader(head('email,name', true))).toEqual({ ok: true, header: ['email', 'name'] });
    expect(await readHeader(head('email,na', false))).toMatchObject({
      ok: false,
      message: /longer than 8 bytes/,
    });
    expect(await readHeader(head('', true))).toMatchObject({ ok: false, message: /is empty/ });
  });
});

describe('createContactImport', () => {
  it('creates a queued import with the resolved column map, then queues its job', async () => {
    const { intake, queue, ports } = setup();
    intake.upload(TEAM, 'imp-1', CSV);
    const refusal = await validationRefusalOf(
      createContactImport(
        command(
          'imp-1',
          {
            column_map: JSON.stringify({
              first_name: 'First Name',
              properties: { plan: { column: 'Plan' } },
            }),
            segments: '[{"id":"seg-1"}]',
            topics: '[{"id":"top-1","subscription":"opt_out"}]',
            on_conflict: 'upsert',
          },
          CSV,
        ),
        ports,
      ),
    );
    // `email` was not named, so the map reads the "email" column — which this header spells "Email"
    expect(refusal).toMatch(/^column_map\.email: no column "email"/);
    expect(intake.files.size).toBe(0); // refused: the upload is deleted
    expect(queue.jobs).toEqual([]);

    intake.upload(TEAM, 'imp-2', CSV);
    const fields = {
      column_map: JSON.stringify({ email: 'Email', properties: { plan: { column: 'Plan' } } }),
      segments: '[{"id":"seg-1"}]',
    };
    const ok = await createContactImport(command('imp-2', fields, CSV), ports);
    expect(ok).toEqual({ id: 'imp-2' });
    expect(intake.get(TEAM, 'imp-2')).toMatchObject({
      status: 'queued',
      created_at: '2026-01-02T03:04:05.000Z',
      bytes: CSV.length,
      options: {
        columnMap: {
          email: 'Email',
          properties: { plan: { column: 'Plan', type: 'string', property: 'string' } },
        },
        onConflict: 'skip',
        segments: ['seg-1'],
        topics: [],
      },
    });
    expect(queue.jobs).toEqual([{ teamId: TEAM, importId: 'imp-2' }]);
  });

  it('uses the default column names when there is no column map', async () => {
    const { intake, ports } = setup();
    await createContactImport(command('imp-1', {}, 'EMAIL,last name,other\n'), ports);
    expect(intake.get(TEAM, 'imp-1')!.options.columnMap).toEqual({
      email: 'EMAIL',
      last_name: 'last name',
      properties: {},
    });
  });

  it('refuses unknown segments, topics and properties naming each, and drops the upload', async () => {
    const { intake, queue, ports } = setup();
    intake.upload(TEAM, 'imp-1', 'email,plan,x\n');
    const message = await validationRefusalOf(
      createContactImport(
        command(
          'imp-1',
          {
            segments: '[{"id":"seg-1"},{"id":"seg-x"}]',
            topics: '[{"id":"top-x","subscription":"opt_in"}]',
            column_map: '{"properties":{"tier":{"column":"x"}}}',
          },
          'email,plan,x\n',
        ),
        ports,
      ),
    );
    expect(message).toBe(
      'segments[1].id: no segment has this id; topics[0].id: no topic has this id; ' +
        'column_map.properties.tier: no contact property has this key (create it first: POST /contact-properties)',
    );
    expect(intake.files.size).toBe(0);
    expect(queue.jobs).toEqual([]);
  });

  it('refuses a file without a header row or without an email column', async () => {
    const { ports } = setup();
    expect(await validationRefusalOf(createContactImport(command('i', {}, ''), ports))).toBe(
      'file: is empty: a CSV with a header row is expected',
    );
    expect(await validationRefusalOf(createContactImport(command('i', {}, 'name,city\n'), ports))).toMatch(
      /^file: the header row has no "email" column/,
    );
  });
});

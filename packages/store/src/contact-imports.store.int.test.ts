import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  CONTACT_IMPORT_MACHINE,
  runContactImport,
  systemClock,
  type ContactImportRecord,
} from '@petrel/core';
import { MemoryContactImports } from '@petrel/testing';
import { ContactImportsStore } from './contact-imports.store.js';
import { ContactsStore } from './contacts.store.js';
import { SegmentsStore } from './segments.store.js';
import { TopicsStore } from './topics.store.js';
import { ContactPropertiesStore } from './contact-properties.store.js';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { importRecord } from '../../testing/src/contracts/contact-imports.contract.js';

const fx = useStoreRedis('contact-imports');

let importCounter = 0;
const importId = (): string => `00000000-0000-7000-8000-${String(++importCounter).padStart(12, '0')}`;

/** The contract's queued import (bytes 0), created a second apart per import. */
function record(id: string, over: Partial<ContactImportRecord> = {}): ContactImportRecord {
  const created_at = new Date(Date.UTC(2026, 0, 1, 0, 0, importCounter)).toISOString();
  return { ...importRecord(id), created_at, bytes: 0, ...over };
}

/** Uploads `data` in chunks of `size` bytes, as the API does. */
async function upload(store: ContactImportsStore, t: string, id: string, data: Buffer, size: number) {
  for (let at = 0; at < data.length; at += size) await store.appendChunk(t, id, data.subarray(at, at + size));
}

/** A store, a new team, and a new import id whose file `data` is uploaded in chunks of `size`. */
async function uploaded(data: Buffer, size: number) {
  const store = new ContactImportsStore(fx.redis, fx.keys);
  const t = nextTeam();
  const id = importId();
  await upload(store, t, id, data, size);
  return { store, t, id };
}

async function readAll(store: ContactImportsStore, t: string, id: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of store.chunks(t, id)) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

/** A segment and a public topic of team `t`, for an import's options to name. */
async function audience(t: string, segment: string, topic: string, subscription: 'opt_in' | 'opt_out') {
  return {
    seg: await new SegmentsStore(fx.redis, fx.keys).create(t, segment),
    topic: await new TopicsStore(fx.redis, fx.keys).create(t, {
      name: topic,
      description: null,
      default_subscription: subscription,
      visibility: 'public',
    }),
  };
}

describe('ContactImportsStore', () => {
  it('keeps an upload byte for byte in order, expiring while pending and kept once claimed', async () => {
    const data = randomBytes(300_000);
    const { store, t, id } = await uploaded(data, 64 * 1024);
    const chunks = fx.keys.contactImportChunks(t, id);
    expect(await fx.redis.llen(chunks)).toBe(5);
    expect(await fx.redis.pttl(chunks)).toBeGreaterThan(50 * 60 * 1000); // upload TTL: 1 h
    expect((await readAll(store, t, id)).equals(data)).toBe(true);

    await store.create(t, record(id, { bytes: data.length }));
    expect(await fx.redis.pttl(chunks)).toBeGreaterThan(6 * 24 * 3600 * 1000); // pending: 7 d
    expect(await fx.redis.pttl(fx.keys.contactImport(t, id))).toBeGreaterThan(6 * 24 * 3600 * 1000);
    expect(await store.get(t, id)).toEqual(record(id, { bytes: data.length }));

    const claimed = await store.claim(t, id, 'run-1', Date.now());
    expect(claimed?.status).toBe('in_progress');
    expect(await fx.redis.pttl(chunks)).toBe(-1);
    expect(await fx.redis.pttl(fx.keys.contactImport(t, id))).toBe(-1);
  });

  it('drops an upload that will not be imported', async () => {
    const { store, t, id } = await uploaded(randomBytes(1000), 100);
    await store.dropChunks(t, id);
    expect(await fx.redis.exists(fx.keys.contactImportChunks(t, id))).toBe(0);
  });

  it('writes checkpoints and the outcome only for the run that holds the import', async () => {
    const { store, t, id } = await uploaded(Buffer.from('email\na@x.test\n'), 1024);
    await store.create(t, record(id));
    expect(await store.claim(t, id, 'run-1', Date.now())).not.toBeNull();
    const progress = {
      rowsDone: 10,
      counts: { total: 10, created: 8, updated: 1, skipped: 0, failed: 1 },
      failures: [{ row: 3, message: 'email: is empty' }],
    };
    expect(await store.checkpoint(t, id, 'run-1', progress)).toBe(true);
    expect(await store.get(t, id)).toMatchObject(progress);

    // another worker takes the job over: the first run can write nothing more
    const taken = await store.claim(t, id, 'run-2', Date.now());
    expect(taken).toMatchObject({ status: 'in_progress', ...progress });
    expect(await store.checkpoint(t, id, 'run-1', { ...progress, rowsDone: 20 })).toBe(false);
    const end = {
      ...progress,
      status: 'completed' as const,
      error: null,
      completedAtMs: Date.parse('2026-02-03T04:05:06Z'),
    };
    expect(await store.finish(t, id, 'run-1', end)).toBe(false);
    expect(await store.finish(t, id, 'run-2', end)).toBe(true);
    expect(await store.get(t, id)).toMatchObject({
      status: 'completed',
      completed_at: '2026-02-03T04:05:06.000Z',
    });
    expect(await fx.redis.exists(fx.keys.contactImportChunks(t, id))).toBe(0);
    expect(await fx.redis.hexists(fx.keys.contactImport(t, id), 'owner')).toBe(0);
    // a finished import is not taken again, nor abandoned
    expect((await store.claim(t, id, 'run-3', Date.now()))?.status).toBe('completed');
    expect(await store.abandon(t, id, 'x', Date.now())).toBe(false);
    expect(await store.claim(t, importId(), 'run-4', Date.now())).toBeNull();
  });

  it('abandons an import whose job ran out of attempts', async () => {
    const { store, t, id } = await uploaded(Buffer.from('email\n'), 1024);
    await store.create(t, record(id));
    await store.claim(t, id, 'run-1', Date.now());
    expect(await store.abandon(t, id, 'Redis unreachable', Date.parse('2026-01-01T00:00:00Z'))).toBe(true);
    expect(await store.get(t, id)).toMatchObject({
      status: 'failed',
      error: 'Redis unreachable',
      completed_at: '2026-01-01T00:00:00.000Z',
    });
    expect(await fx.redis.exists(fx.keys.contactImportChunks(t, id))).toBe(0);
  });

  it('lists newest first, filtered by status, with cursors both ways', async () => {
    const store = new ContactImportsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const id = importId();
      ids.push(id);
      await store.create(t, record(id, { status: i % 2 === 0 ? 'queued' : 'completed' }));
    }
    const newest = [...ids].reverse();
    const all = await store.list(t, { limit: 3 });
    expect(all?.items.map((r) => r.id)).toEqual(newest.slice(0, 3));
    expect(all?.hasMore).toBe(true);
    const queued = newest.filter((_, i) => (6 - i) % 2 === 0);
    const q1 = await store.list(t, { limit: 2 }, 'queued');
    expect(q1?.items.map((r) => r.id)).toEqual(queued.slice(0, 2));
    expect(q1?.hasMore).toBe(true);
    const q2 = await store.list(t, { limit: 2, after: queued[1]! }, 'queued');
    expect(q2?.items.map((r) => r.id)).toEqual(queued.slice(2, 4));
    expect(q2?.hasMore).toBe(false);
    const back = await store.list(t, { limit: 1, before: queued[2]! }, 'queued');
    expect(back?.items.map((r) => r.id)).toEqual([queued[1]]);
    expect(back?.hasMore).toBe(true);
    expect(await store.list(t, { limit: 2, after: 'nope' }, 'queued')).toBeNull();
    expect((await store.list(t, { limit: 10 }, 'failed'))?.items).toEqual([]);
  });

  it('tells which segments, topics and contact properties exist', async () => {
    const store = new ContactImportsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const { seg, topic } = await audience(t, 'VIP', 'News', 'opt_in');
    await new ContactPropertiesStore(fx.redis, fx.keys).create(t, { key: 'plan', type: 'string' } as never);
    await new ContactPropertiesStore(fx.redis, fx.keys).create(t, { key: 'seats', type: 'number' } as never);
    expect(await store.missing(t, { segments: [seg.id, importId()], topics: [topic.id, 'nope'] })).toEqual({
      segments: [expect.any(String)],
      topics: ['nope'],
    });
    expect(await store.propertyTypes(t, ['plan', 'seats', 'other'])).toEqual({
      plan: 'string',
      seats: 'number',
      other: null,
    });
  });
});

describe('runContactImport on Redis (ContactImportsStore + ContactsStore)', () => {
  it('imports a file read chunk by chunk, resumes after a crash, and ends with every contact once', async () => {
    const imports = new ContactImportsStore(fx.redis, fx.keys);
    const contacts = new ContactsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const { seg, topic } = await audience(t, 'Imported', 'Digest', 'opt_out');
    const id = importId();
    const rows = 2_500;
    const lines = ['email,first_name'];
    for (let i = 0; i < rows; i++)
      lines.push(i % 500 === 7 ? `broken-${i},X` : `user${i}@example.test,"User, ${i}"`);
    const csv = Buffer.from(lines.join('\r\n') + '\r\n');
    await upload(imports, t, id, csv, 4096); // chunk edges fall inside rows and quoted fields
    await imports.create(
      t,
      record(id, {
        bytes: csv.length,
        options: {
          columnMap: { email: 'email', first_name: 'first_name', properties: {} },
          onConflict: 'upsert',
          segments: [seg.id],
          topics: [{ id: topic.id, subscription: 'opt_in' }],
        },
      }),
    );

    let calls = 0;
    const crashing = {
      upsertMany: async (...args: Parameters<ContactsStore['upsertMany']>) => {
        if (++calls === 2) {
          await contacts.upsertMany(args[0], args[1].slice(0, 300), args[2]); // half written, then dead
          throw new Error('killed');
        }
        return contacts.upsertMany(...args);
      },
    };
    const policy = { batchRows: 1_000 };
    await expect(
      runContactImport(
        { teamId: t, importId: id, runId: 'r1' },
        { imports, contacts: crashing, policy, clock: systemClock },
      ),
    ).rejects.toThrow('killed');
    expect((await imports.get(t, id))?.rowsDone).toBe(1_000);

    const res = await runContactImport(
      { teamId: t, importId: id, runId: 'r2' },
      { imports, contacts, policy, clock: systemClock },
    );
    const failed = 5;
    expect(res).toEqual({
      outcome: 'completed',
      counts: { total: rows, created: rows - failed - 300, updated: 300, skipped: 0, failed },
      error: null,
    });
    expect(await fx.redis.hlen(fx.keys.contactByEmail(t))).toBe(rows - failed);
    expect(await fx.redis.zcard(fx.keys.contacts(t))).toBe(rows - failed);
    expect(await fx.redis.zcard(fx.keys.segmentMembers(t, seg.id))).toBe(rows - failed);
    expect(await fx.redis.hlen(fx.keys.topicSubscriptions(t, topic.id))).toBe(rows - failed);
    const c = await contacts.get(t, 'user42@example.test');
    expect(c?.first_name).toBe('User, 42');
    const rec = await imports.get(t, id);
    expect(rec?.status).toBe('completed');
    expect(rec?.failures[0]).toEqual({ row: 8, message: 'email: "broken-7" is not a valid email address' });
    expect(await fx.redis.exists(fx.keys.contactImportChunks(t, id))).toBe(0);
  });
});

describe("claim and abandon accept exactly the table's unfinished statuses", () => {
  const unfinished = [...CONTACT_IMPORT_MACHINE.guards.unfinished];

  /** The statuses from which `run` went through, one fresh import per status. */
  async function passing(
    port: { create(teamId: string, r: ContactImportRecord): Promise<void> },
    run: (t: string, id: string) => Promise<boolean>,
  ): Promise<string[]> {
    const out: string[] = [];
    for (const status of CONTACT_IMPORT_MACHINE.statuses) {
      const t = nextTeam();
      const id = importId();
      await port.create(t, record(id, { status }));
      if (await run(t, id)) out.push(status);
    }
    return out;
  }

  it('the Redis store (its Lua guards)', async () => {
    const store = new ContactImportsStore(fx.redis, fx.keys);
    const nowMs = Date.now();
    const claimed = await passing(
      store,
      async (t, id) => (await store.claim(t, id, 'run-1', nowMs))?.status === 'in_progress',
    );
    expect(claimed).toEqual(unfinished);
    expect(await passing(store, (t, id) => store.abandon(t, id, 'gave up', nowMs))).toEqual(unfinished);
  });

  it('the in-memory port core’s unit tests use', async () => {
    const memory = new MemoryContactImports();
    const claimed = await passing(
      memory,
      async (t, id) => (await memory.claim(t, id, 'run-1', Date.now()))?.status === 'in_progress',
    );
    expect(claimed).toEqual(unfinished);
  });
});

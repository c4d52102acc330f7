/**
 * Contact imports e2e: POST /contacts/imports with the official SDK (`contacts.imports.create`,
 * camelCase `columnMap` / `onConflict` as the SDK types them, the CSV as a Blob), progress and
 * outcome through `contacts.imports.get` / `list`, the contacts read back through the contact
 * routes; a 100,000-row file streamed as a chunked multipart body; and a worker process killed
 * with SIGKILL mid-import, after which a new worker finishes it with every row counted once and
 * every contact there exactly once.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, startSmtpSink, uniquePrefix, waitUntil, type NodeProcess } from '@petrel/testing';
import { Keys } from '@petrel/store';
import { cleanupsAfterEach, startApiApp, startApp, startStack, type Stack } from './helpers.js';

type ImportView = {
  status: string;
  completed_at: string | null;
  counts: { total: number; created: number; updated: number; skipped: number; failed: number };
  failures?: { row: number; message: string }[];
  error?: string | null;
};

/** The whole multipart body of an import, streamed: the CSV rows generated as they are sent. */
function streamedImport(
  boundary: string,
  rows: number,
  row: (i: number) => string,
  fields: Record<string, string>,
) {
  const enc = new TextEncoder();
  return (async function* () {
    yield enc.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\n` +
        'Content-Type: text/csv\r\n\r\nemail,first_name\n',
    );
    for (let at = 0; at < rows; at += 5_000) {
      let text = '';
      for (let i = at; i < Math.min(rows, at + 5_000); i++) text += `${row(i)}\n`;
      yield enc.encode(text);
    }
    let tail = '\r\n';
    for (const [name, value] of Object.entries(fields))
      tail += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    yield enc.encode(`${tail}--${boundary}--\r\n`);
  })();
}

/** POSTs a streamed import (chunked, no Content-Length); returns the import id. */
async function postStreamed(
  baseUrl: string,
  key: string,
  rows: number,
  row: (i: number) => string,
  fields: Record<string, string> = {},
): Promise<string> {
  const boundary = `petrel-${randomBytes(8).toString('hex')}`;
  const res = await fetch(`${baseUrl}/contacts/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: streamedImport(boundary, rows, row, fields) as unknown as RequestInit['body'],
    duplex: 'half',
  } as RequestInit);
  const body = (await res.json()) as { id?: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.id!;
}

async function waitForImport(resend: Resend, id: string, timeoutMs: number): Promise<ImportView> {
  let last: ImportView | null = null;
  await waitUntil(
    async () => {
      const { data, error } = await resend.contacts.imports.get(id);
      if (error) throw new Error(`${error.name}: ${error.message}`);
      last = data as unknown as ImportView;
      return last.status === 'completed' || last.status === 'failed';
    },
    { timeoutMs, intervalMs: 100, message: `contact import ${id} to end` },
  );
  return last!;
}

describe('contact imports through the whole stack', () => {
  let stack: Stack;
  let admin: Redis;
  let keys: Keys;
  let teamId: string;
  const MAX_BYTES = 8 * 1024 * 1024;

  beforeAll(async () => {
    stack = await startStack({ env: { CONTACT_IMPORT_MAX_BYTES: String(MAX_BYTES) } });
    admin = new Redis(stack.redis.url);
    keys = new Keys(stack.prefix);
    teamId = (await admin.smembers(keys.teams()))[0]!;
  });
  afterAll(async () => {
    admin?.disconnect();
    await stack?.stop();
  });

  const csvBlob = (text: string) => new Blob([text], { type: 'text/csv' });

  it('imports valid, duplicate and invalid rows with the right counts, segments, topics and properties', async () => {
    const { resend } = stack;
    const segment = (await resend.segments.create({ name: 'Imported' })).data!;
    const topic = (await resend.topics.create({ name: 'Digest', defaultSubscription: 'opt_out' })).data!;
    const property = await resend.contactProperties.create({ key: 'plan', type: 'string' });
    expect(property.error).toBeNull();
    const csv = [
      'Email,First,Last,Unsub,Plan',
      'ada@example.test,Ada,Lovelace,no,pro',
      'grace@example.test,Grace,Hopper,yes,free',
      'not-an-email,X,Y,no,pro',
      'ADA@example.test,Augusta,,,team', // the same mailbox again: the later row wins (upsert)
      'linus@example.test,Linus,,maybe,pro', // unsubscribed is not a boolean
      ',Nobody,,,',
    ].join('\r\n');
    const created = await resend.contacts.imports.create({
      file: csvBlob(csv),
      columnMap: {
        email: 'Email',
        firstName: 'First',
        lastName: 'Last',
        unsubscribed: 'Unsub',
        properties: { plan: { column: 'Plan', type: 'string' } },
      },
      onConflict: 'upsert',
      segments: [{ id: segment.id }],
      topics: [{ id: topic.id, subscription: 'opt_in' }],
    });
    expect(created.error).toBeNull();
    expect(created.data).toEqual({ object: 'contact_import', id: expect.any(String) });
    const id = created.data!.id;

    const done = await waitForImport(resend, id, 30_000);
    expect(done).toMatchObject({
      object: 'contact_import',
      id,
      status: 'completed',
      created_at: expect.any(String),
      completed_at: expect.any(String),
      counts: { total: 6, created: 2, updated: 1, skipped: 0, failed: 3 },
    });
    expect(done.failures).toEqual([
      { row: 3, message: 'email: "not-an-email" is not a valid email address' },
      { row: 5, message: 'unsubscribed: "maybe" is not a boolean (true/false, 1/0, yes/no)' },
      { row: 6, message: 'email: is empty' },
    ]);

    const ada = await resend.contacts.get({ email: 'ada@example.test' });
    expect(ada.error).toBeNull();
    expect(ada.data).toMatchObject({
      email: 'ada@example.test',
      first_name: 'Augusta',
      last_name: 'Lovelace',
    });
    expect(JSON.stringify(ada.data!.properties)).toContain('team');
    const grace = await resend.contacts.get({ email: 'grace@example.test' });
    expect(grace.data).toMatchObject({ first_name: 'Grace', unsubscribed: true });
    expect((await resend.contacts.get({ email: 'linus@example.test' })).error?.name).toBe('not_found');

    const segments = await resend.contacts.segments.list({ email: 'ada@example.test' });
    expect(segments.data?.data.map((s) => s.id)).toEqual([segment.id]);
    const topics = await resend.contacts.topics.list({ email: 'grace@example.test' });
    expect(topics.data?.data).toEqual([expect.objectContaining({ id: topic.id, subscription: 'opt_in' })]);

    // imports publish no contact events (as Resend's)
    const events = await admin.xrange(keys.events(teamId), '-', '+');
    expect(events.filter(([, f]) => f.join(' ').includes('"contact.'))).toEqual([]);
    // the file is gone once the import has ended
    expect(await admin.exists(keys.contactImportChunks(teamId, id))).toBe(0);
  });

  it('on_conflict skip leaves an existing contact alone; upsert updates it', async () => {
    const { resend } = stack;
    await resend.contacts.create({ email: 'kept@example.test', firstName: 'Original' });
    const csv = 'email,first_name\nkept@example.test,Changed\nnew-one@example.test,New\n';

    const skip = await resend.contacts.imports.create({ file: csvBlob(csv), onConflict: 'skip' });
    expect(await waitForImport(resend, skip.data!.id, 30_000)).toMatchObject({
      status: 'completed',
      counts: { total: 2, created: 1, updated: 0, skipped: 1, failed: 0 },
    });
    expect((await resend.contacts.get({ email: 'kept@example.test' })).data?.first_name).toBe('Original');

    // without onConflict: Resend's documented default, skip
    const byDefault = await resend.contacts.imports.create({ file: csvBlob(csv) });
    expect((await waitForImport(resend, byDefault.data!.id, 30_000)).counts).toMatchObject({ skipped: 2 });

    const upsert = await resend.contacts.imports.create({ file: csvBlob(csv), onConflict: 'upsert' });
    expect(await waitForImport(resend, upsert.data!.id, 30_000)).toMatchObject({
      counts: { total: 2, created: 0, updated: 2, skipped: 0, failed: 0 },
    });
    expect((await resend.contacts.get({ email: 'kept@example.test' })).data?.first_name).toBe('Changed');

    const listed = await resend.contacts.imports.list({ status: 'completed', limit: 100 });
    expect(listed.error).toBeNull();
    const ids = listed.data!.data.map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining([skip.data!.id, byDefault.data!.id, upsert.data!.id]));
    expect(listed.data!.data.every((i) => i.status === 'completed')).toBe(true);
    expect((await resend.contacts.imports.list({ status: 'failed' })).data?.data).toEqual([]);
  });

  it('refuses bad requests up front with 4xx naming the rule, and queues nothing', async () => {
    const { resend } = stack;
    const before = await admin.zcard(keys.contactImports(teamId));
    const refuse = async (opts: Parameters<Resend['contacts']['imports']['create']>[0]) => {
      const res = await resend.contacts.imports.create(opts);
      expect(res.data).toBeNull();
      return res.error!;
    };
    const file = csvBlob('email\na@example.test\n');
    expect(await refuse({ file, segments: [{ id: '0190a0a0-0000-7000-8000-000000000000' }] })).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: 'segments[0].id: no segment has this id',
    });
    expect(await refuse({ file, topics: [{ id: 'nope', subscription: 'opt_in' }] })).toMatchObject({
      message: 'topics[0].id: no topic has this id',
    });
    expect(await refuse({ file, columnMap: { email: 'Mail' } })).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^column_map\.email: no column "Mail" in the file's header/),
    });
    expect(await refuse({ file, columnMap: { properties: { nope: { column: 'email' } } } })).toMatchObject({
      message: expect.stringMatching(/^column_map\.properties\.nope: no contact property has this key/),
    });
    expect(await refuse({ file: csvBlob('name,city\nAda,London\n') })).toMatchObject({
      message: expect.stringMatching(/^file: the header row has no "email" column/),
    });
    expect(await refuse({ file: csvBlob('') })).toMatchObject({
      message: expect.stringMatching(/^file: is empty/),
    });

    const json = await stack.http('/contacts/imports', { method: 'POST', body: '{"file":"x"}' });
    expect(json.status).toBe(415);
    const noFile = new FormData();
    noFile.append('on_conflict', 'skip');
    const missing = await fetch(`${stack.baseUrl}/contacts/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.key}` },
      body: noFile,
    });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({
      message: 'file: is required (a CSV file as the `file` part)',
    });

    // over CONTACT_IMPORT_MAX_BYTES: 413 naming the limit, from the declared length at once…
    const big = await refuse({ file: csvBlob(`email\n${'a@example.test\n'.repeat(MAX_BYTES / 15 + 10)}`) });
    expect(big).toMatchObject({ statusCode: 413, name: 'payload_too_large' });
    expect(big.message).toMatch(/CONTACT_IMPORT_MAX_BYTES/);
    // …and from the bytes themselves when the body is streamed without a length
    const boundary = 'petrel-limit';
    const streamed = await fetch(`${stack.baseUrl}/contacts/imports`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: streamedImport(
        boundary,
        700_000,
        (i) => `user${i}@example.test,U`,
        {},
      ) as unknown as RequestInit['body'],
      duplex: 'half',
    } as RequestInit).catch((err: unknown) => err);
    if (streamed instanceof Response) {
      expect(streamed.status).toBe(413);
      expect(((await streamed.json()) as { message: string }).message).toMatch(/CONTACT_IMPORT_MAX_BYTES/);
    } // else the server closed the connection while the client was still sending: refused too

    expect(await admin.zcard(keys.contactImports(teamId))).toBe(before);
    await waitUntil(
      async () => (await admin.keys(`${stack.prefix}:*:contact-import:*:chunks`)).length === 0,
      {
        message: 'refused uploads to leave no chunks',
      },
    );
    expect((await resend.contacts.imports.get('0190a0a0-0000-7000-8000-000000000000')).error?.name).toBe(
      'not_found',
    );
    expect((await resend.contacts.imports.list({ status: 'done' as never })).error).toMatchObject({
      statusCode: 422,
      message: 'status: must be one of queued, in_progress, completed, failed',
    });
  });

  it('imports 100,000 streamed rows with progress visible while it runs', async () => {
    const rows = 100_000;
    const id = await postStreamed(stack.baseUrl, stack.key, rows, (i) => `bulk${i}@example.test,Bulk ${i}`, {
      on_conflict: 'upsert',
    });
    const seen: ImportView[] = [];
    const done = await (async () => {
      for (;;) {
        const { data } = await stack.resend.contacts.imports.get(id);
        const view = data as unknown as ImportView;
        seen.push(view);
        if (view.status === 'completed' || view.status === 'failed') return view;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    expect(done).toMatchObject({ status: 'completed', counts: { total: rows, created: rows, failed: 0 } });
    expect(seen.some((v) => v.status === 'in_progress' && v.counts.total > 0 && v.counts.total < rows)).toBe(
      true,
    );
    const mailboxes = await admin.hmget(
      keys.contactByEmail(teamId),
      'bulk0@example.test',
      'bulk99999@example.test',
    );
    expect(mailboxes.every((m) => m !== null)).toBe(true);
  });
});

describe('a worker killed with SIGKILL mid-import', () => {
  const cleanups = cleanupsAfterEach();

  it('resumes at its checkpoint in a new worker: total = rows, no contact lost or doubled', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const sink = await startSmtpSink();
    cleanups.push(() => sink.stop());
    const prefix = uniquePrefix('imp-chaos');
    const common = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'info' };
    const { apiUrl, key, resend } = await startApiApp(common, cleanups);
    const startWorker = async (): Promise<NodeProcess> => {
      const w = await startApp('worker', {
        ...common,
        SMTP_URL: sink.url,
        // test-sized takeover of a dead worker's job (production: 30 s)
        WORKER_LOCK_DURATION_MS: '4000',
        WORKER_STALLED_INTERVAL_MS: '2000',
      });
      cleanups.push(() => w.stop());
      return w;
    };
    const admin = new Redis(redis.url);
    cleanups.push(async () => admin.disconnect());
    const keys = new Keys(prefix);

    const rows = 150_000;
    const id = await postStreamed(apiUrl, key, rows, (i) => `chaos${i}@example.test,C${i}`, {
      on_conflict: 'upsert',
    });
    const first = await startWorker();
    // kill it once it is well into the file
    let before: ImportView | undefined;
    await waitUntil(
      async () => {
        before = (await resend.contacts.imports.get(id)).data as unknown as ImportView;
        return before.status === 'in_progress' && before.counts.total >= 30_000;
      },
      { timeoutMs: 60_000, intervalMs: 20, message: 'the import to pass 30,000 rows' },
    );
    first.kill('SIGKILL');
    await first.exited();
    const atKill = (await resend.contacts.imports.get(id)).data as unknown as ImportView;
    expect(atKill.status).toBe('in_progress');
    expect(atKill.counts.total).toBeLessThan(rows);

    const second = await startWorker();
    const done = await waitForImport(resend, id, 120_000);
    const teamId = (await admin.smembers(keys.teams()))[0]!;
    const contacts = await admin.hlen(keys.contactByEmail(teamId));
    const listed = await admin.zcard(keys.contacts(teamId));
    console.log(
      `import chaos: killed at ${atKill.counts.total} rows; resumed and ended ${done.status}: ` +
        `${JSON.stringify(done.counts)}; contacts ${contacts}`,
    );
    expect(done.status).toBe('completed');
    expect(done.counts.total).toBe(rows);
    expect(done.counts.created + done.counts.updated).toBe(rows);
    expect(done.counts.failed + done.counts.skipped).toBe(0);
    expect(contacts).toBe(rows);
    expect(listed).toBe(rows);
    expect(second.output()).toMatch(/contact import resumed from its checkpoint/);
    expect(await admin.exists(keys.contactImportChunks(teamId, id))).toBe(0);
  });
});

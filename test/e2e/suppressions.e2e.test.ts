/**
 * Suppressions e2e: the suppression list through the official `resend` SDK (`suppressions.add`,
 * `list({ origin })`, `get`/`remove` by id or by address — the SDK percent-encodes the address in
 * the path —, `batch.add`, `batch.remove` by emails or ids): one entry per mailbox, field-named
 * 422s, 404s, and the suppression.* events on the team's stream — against the whole stack.
 */
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '@petrel/contracts';
import { SuppressionsStore } from '@petrel/store';
import { fileStack, uniqueAddress } from './helpers.js';

const stack = fileStack();

let seq = 0;

const suppressionEvents = async (): Promise<TeamEvent[]> =>
  (await stack.teamEvents('suppression.')) as TeamEvent[];

describe('suppressions (SDK)', () => {
  it('adds, reads by id and by (encoded) address, lists and removes an entry', async () => {
    const email = `Ada+News-${++seq}@Example.test`;
    const added = await stack.resend.suppressions.add({ email });
    expect(added.error).toBeNull();
    expect(added.data).toEqual({ object: 'suppression', id: expect.any(String) });
    const id = added.data!.id;

    const expected = {
      object: 'suppression',
      id,
      email,
      origin: 'manual',
      source_id: null,
      created_at: expect.any(String),
    };
    expect((await stack.resend.suppressions.get(id)).data).toEqual(expected);
    // The SDK sends `/suppressions/Ada%2BNews-1%40Example.test`; another spelling of the mailbox matches.
    expect((await stack.resend.suppressions.get(email)).data).toEqual(expected);
    expect((await stack.resend.suppressions.get(email.toLowerCase())).data).toEqual(expected);
    const raw = await stack.http(`/suppressions/${email}`);
    expect(raw.body).toEqual({ ...expected, created_at: raw.body.created_at });

    const again = await stack.resend.suppressions.add({ email: email.toUpperCase() });
    expect(again.data).toEqual({ object: 'suppression', id });

    const listed = await stack.resend.suppressions.list();
    expect(listed.error).toBeNull();
    expect(listed.data!.data).toContainEqual({
      id,
      email,
      origin: 'manual',
      source_id: null,
      created_at: expect.any(String),
    });

    const removed = await stack.resend.suppressions.remove(email);
    expect(removed.error).toBeNull();
    expect(removed.data).toEqual({ object: 'suppression', id, deleted: true });
    expect((await stack.resend.suppressions.get(id)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
      message: 'Suppression not found',
    });
    expect((await stack.resend.suppressions.remove(id)).error).toMatchObject({ statusCode: 404 });

    const events = (await suppressionEvents()).filter((e) => e.data.id === id);
    expect(events.map((e) => e.type)).toEqual(['suppression.added', 'suppression.removed']);
    expect(events[0]!.data).toEqual({
      id,
      email,
      origin: 'manual',
      source_id: null,
      created_at: expect.any(String),
    });
  });

  it('batch add returns ids in order (an existing mailbox keeps its id); batch remove by emails and by ids', async () => {
    const [a, b, c] = [uniqueAddress('batch'), uniqueAddress('batch'), uniqueAddress('batch')];
    const pre = await stack.resend.suppressions.add({ email: b });
    const batch = await stack.resend.suppressions.batch.add({ emails: [a, b.toUpperCase(), c] });
    expect(batch.error).toBeNull();
    expect(batch.data!.data).toEqual([
      { object: 'suppression', id: expect.any(String) },
      { object: 'suppression', id: pre.data!.id },
      { object: 'suppression', id: expect.any(String) },
    ]);
    const [idA, , idC] = batch.data!.data.map((d) => d.id);

    const byEmails = await stack.resend.suppressions.batch.remove({ emails: [a, uniqueAddress('never')] });
    expect(byEmails.error).toBeNull();
    expect(byEmails.data!.data).toEqual([
      { object: 'suppression', id: idA, deleted: true },
      { object: 'suppression', id: expect.stringMatching(/^never-/), deleted: false },
    ]);
    const byIds = await stack.resend.suppressions.batch.remove({ ids: [idC!, pre.data!.id] });
    expect(byIds.data!.data).toEqual([
      { object: 'suppression', id: idC, deleted: true },
      { object: 'suppression', id: pre.data!.id, deleted: true },
    ]);
    for (const email of [a, b, c]) {
      expect((await stack.resend.suppressions.get(email)).error).toMatchObject({ statusCode: 404 });
    }
  });

  it('filters the list by origin and pages it with cursors', async () => {
    // Bounces come from the sending pipeline (SuppressionsWriter); here straight from the store.
    // One ms apart: entries of one ms list in id order, not necessarily in creation order.
    let now = Date.now();
    const store = new SuppressionsStore(stack.admin, stack.keys, { now: () => ++now });
    const bounces: string[] = [];
    for (let i = 0; i < 3; i++) {
      bounces.unshift(
        (await store.add(stack.teamId, uniqueAddress('bounced'), 'bounce', `email-${i}`)).record.id,
      );
    }
    await stack.resend.suppressions.add({ email: uniqueAddress('manual') });

    const first = await stack.resend.suppressions.list({ origin: 'bounce', limit: 2 });
    expect(first.error).toBeNull();
    expect(first.data!.data.map((s) => s.id)).toEqual(bounces.slice(0, 2));
    expect(first.data!.has_more).toBe(true);
    expect(first.data!.data[0]).toMatchObject({ origin: 'bounce', source_id: 'email-2' });
    const next = await stack.resend.suppressions.list({ origin: 'bounce', limit: 2, after: bounces[1]! });
    expect(next.data!.data.map((s) => s.id)).toEqual(bounces.slice(2));
    expect(next.data!.has_more).toBe(false);
    const manual = await stack.resend.suppressions.list({ origin: 'manual', limit: 100 });
    expect(manual.data!.data.every((s) => s.origin === 'manual')).toBe(true);

    const bad = await stack.http('/suppressions?origin=spam');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe("origin: must be one of 'bounce', 'complaint', 'manual'");
  });

  it.each([
    ['/suppressions', {}, 'email: is required'],
    ['/suppressions', { email: 'not-an-address' }, /^email: invalid address \(/],
    ['/suppressions', { email: 'Ada <ada@example.test>' }, /^email: must be a bare email address/],
    ['/suppressions/batch/add', { emails: [] }, 'emails: must be an array of 1 to 100 email addresses'],
    ['/suppressions/batch/add', { emails: ['ok@example.test', 'bad'] }, /^emails\[1\]: invalid address/],
    ['/suppressions/batch/remove', {}, 'body: emails or ids is required'],
    [
      '/suppressions/batch/remove',
      { emails: ['a@example.test'], ids: ['x'] },
      'body: give either emails or ids, not both',
    ],
  ] as [string, object, string | RegExp][])(
    'POST %s %j is a 422 naming the field',
    async (path, body, message) => {
      const res = await stack.http(path, { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ statusCode: 422, name: 'validation_error' });
      if (typeof message === 'string') expect(res.body.message).toBe(message);
      else expect(res.body.message).toMatch(message);
    },
  );

  it('the SDK surfaces the 422 and the 404', async () => {
    const bad = await stack.resend.suppressions.add({ email: 'nope' });
    expect(bad.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const missing = await stack.resend.suppressions.get('nobody@example.test');
    expect(missing.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });
});

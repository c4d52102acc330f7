/**
 * Topics e2e: CRUD through the official `resend` SDK (camelCase `defaultSubscription` on create;
 * `topics.update` sends its payload as it is, `id` included), the immutability of
 * `default_subscription`, field-named 422s, 404s, pagination, and the topic.* events on the
 * team's stream — against the whole stack.
 */
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '@petrel/contracts';
import { createdId, fileStack, ok } from './helpers.js';

const stack = fileStack();

const MISSING = '0190a0b0-0000-7000-8000-000000000000';

/** The topic.* events on the stack's (one) team stream. */
const topicEvents = async (): Promise<TeamEvent[]> => (await stack.teamEvents('topic.')) as TeamEvent[];

describe('topics (SDK)', () => {
  it('creates, reads, lists, updates and removes a topic', async () => {
    const id = await createdId(
      stack.resend.topics.create({
        name: 'Product updates',
        description: 'Monthly',
        defaultSubscription: 'opt_in',
      }),
      'topic',
    );

    const got = ok(await stack.resend.topics.get(id));
    expect(got).toEqual({
      object: 'topic',
      id,
      name: 'Product updates',
      description: 'Monthly',
      default_subscription: 'opt_in',
      visibility: 'private',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const listed = ok(await stack.resend.topics.list());
    expect(listed).toMatchObject({ object: 'list', has_more: false });
    expect(listed.data).toContainEqual({
      id,
      name: 'Product updates',
      description: 'Monthly',
      default_subscription: 'opt_in',
      visibility: 'private',
      created_at: got.created_at,
    });

    const updated = await stack.resend.topics.update({ id, name: 'Product news', description: 'Weekly' });
    expect(updated.error).toBeNull();
    expect(updated.data).toEqual({ object: 'topic', id });
    expect((await stack.resend.topics.get(id)).data).toMatchObject({
      name: 'Product news',
      description: 'Weekly',
    });

    const removed = await stack.resend.topics.remove(id);
    expect(removed.error).toBeNull();
    expect(removed.data).toEqual({ object: 'topic', id, deleted: true });
    const gone = await stack.resend.topics.get(id);
    expect(gone.error).toMatchObject({ statusCode: 404, name: 'not_found' });

    const types = (await topicEvents()).filter((e) => e.data.id === id).map((e) => e.type);
    expect(types).toEqual(['topic.created', 'topic.updated', 'topic.deleted']);
    const deleted = (await topicEvents()).find((e) => e.data.id === id && e.type === 'topic.deleted')!;
    expect(deleted.data).toEqual({
      id,
      name: 'Product news',
      description: 'Weekly',
      default_subscription: 'opt_in',
      deleted: true,
      created_at: got.created_at,
      updated_at: expect.any(String),
    });
  });

  it('visibility passes through the SDK as an extra key; unknown extras are ignored', async () => {
    const created = await stack.resend.topics.create({
      name: 'Public',
      defaultSubscription: 'opt_out',
      ...({ visibility: 'public', colour: 'blue' } as object),
    });
    expect(created.error).toBeNull();
    const got = await stack.resend.topics.get(created.data!.id);
    expect(got.data).toMatchObject({
      visibility: 'public',
      default_subscription: 'opt_out',
      description: null,
    });
    expect(got.data).not.toHaveProperty('colour');
    const update = await stack.resend.topics.update({
      id: created.data!.id,
      ...({ visibility: 'private', description: null } as object),
    });
    expect(update.error).toBeNull();
    expect((await stack.resend.topics.get(created.data!.id)).data).toMatchObject({ visibility: 'private' });
  });

  it('default_subscription is immutable: the same value passes, another is a 422 naming it', async () => {
    const { data } = await stack.resend.topics.create({ name: 'Alerts', defaultSubscription: 'opt_in' });
    const id = data!.id;
    const same = await stack.resend.topics.update({
      id,
      name: 'Alerts!',
      ...({ default_subscription: 'opt_in' } as object),
    });
    expect(same.error).toBeNull();
    const changed = await stack.resend.topics.update({
      id,
      ...({ default_subscription: 'opt_out' } as object),
    });
    expect(changed.error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: expect.stringMatching(/^default_subscription: cannot be changed after the topic is created/),
    });
    expect((await stack.resend.topics.get(id)).data).toMatchObject({
      default_subscription: 'opt_in',
      name: 'Alerts!',
    });

    // An id in the body that names another topic is refused too (raw HTTP: the SDK uses it as the path).
    const res = await stack.http(`/topics/${id}`, {
      method: 'PATCH',
      body: JSON.stringify({ id: MISSING, name: 'x' }),
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      name: 'validation_error',
      message: 'id: must be the id of the topic in the path',
    });
  });

  it.each([
    [{ name: 'No default' }, 'default_subscription: is required'],
    [{ defaultSubscription: 'opt_in' }, 'name: is required'],
    [{ name: 'x'.repeat(51), defaultSubscription: 'opt_in' }, 'name: at most 50 characters'],
    [
      { name: 'Long', description: 'd'.repeat(201), defaultSubscription: 'opt_in' },
      'description: at most 200 characters',
    ],
    [
      { name: 'Dash', defaultSubscription: 'opt-in' },
      "default_subscription: must be one of 'opt_in', 'opt_out'",
    ],
  ])('create refuses %j with a 422 naming the field', async (options, message) => {
    const res = await stack.resend.topics.create(options as never);
    expect(res.data).toBeNull();
    expect(res.error).toEqual({ statusCode: 422, name: 'validation_error', message });
  });

  it('unknown topics are 404 for get, update and remove', async () => {
    for (const res of [
      await stack.resend.topics.get(MISSING),
      await stack.resend.topics.update({ id: MISSING, name: 'x' }),
      await stack.resend.topics.remove(MISSING),
      await stack.resend.topics.get('not-an-id'),
    ]) {
      expect(res.error).toMatchObject({ statusCode: 404, name: 'not_found', message: 'Topic not found' });
    }
  });

  it('lists newest first, 20 by default, with limit and cursors (raw HTTP: the SDK sends no query)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) {
      const { data } = await stack.resend.topics.create({ name: `Page ${i}`, defaultSubscription: 'opt_in' });
      ids.push(data!.id);
    }
    const first = await stack.resend.topics.list();
    const firstIds = first.data!.data.map((t) => t.id);
    expect(firstIds).toHaveLength(20);
    expect(first.data).toMatchObject({ has_more: true });
    // Newest first (topics created within one ms may list in either order).
    const created = first.data!.data.map((t) => Date.parse(t.created_at));
    expect(created).toEqual([...created].sort((x, y) => y - x));
    expect(ids.slice(-19).every((id) => firstIds.includes(id))).toBe(true);
    const page = await stack.http(`/topics?limit=2&after=${firstIds[0]}`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((t: { id: string }) => t.id)).toEqual(firstIds.slice(1, 3));
    expect(page.body.has_more).toBe(true);
    const back = await stack.http(`/topics?limit=2&before=${firstIds[3]}`);
    expect(back.body.data.map((t: { id: string }) => t.id)).toEqual(firstIds.slice(1, 3));
    const bad = await stack.http(`/topics?limit=2&after=${MISSING}`);
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('after: no such topic');
  });
});

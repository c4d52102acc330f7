import { describe, expect, it } from 'vitest';
import { formatIssues } from '@petrel/contracts';
import { MemoryTopics } from '@petrel/testing';
import { createTopicSchema, updateTopicSchema } from './topic-schemas.js';
import { createTopic, deleteTopic, updateTopic } from './topic-use-cases.js';

/** The 422 message the API would answer for `body`, or undefined when it is valid. */
function problem(
  schema: typeof createTopicSchema | typeof updateTopicSchema,
  body: unknown,
): string | undefined {
  const res = schema.safeParse(body);
  return res.success ? undefined : formatIssues(res.error.issues, { input: body });
}

describe('topic schemas', () => {
  it.each([
    [{ default_subscription: 'opt_in' }, 'name: is required'],
    [{ name: 'N' }, 'default_subscription: is required'],
    [
      { name: 'N', default_subscription: 'opt-in' },
      "default_subscription: must be one of 'opt_in', 'opt_out'",
    ],
    [{ name: ' ', default_subscription: 'opt_in' }, 'name: must not be empty'],
    [{ name: 'x'.repeat(51), default_subscription: 'opt_in' }, 'name: at most 50 characters'],
    [
      { name: 'N', default_subscription: 'opt_in', description: 'd'.repeat(201) },
      'description: at most 200 characters',
    ],
    [
      { name: 'N', default_subscription: 'opt_in', visibility: 'hidden' },
      "visibility: must be one of 'public', 'private'",
    ],
    [{ name: 7, default_subscription: 'opt_in' }, 'name: must be a string'],
  ])('refuses %j: %s', (body, message) => {
    expect(problem(createTopicSchema, body)).toBe(message);
  });

  it('accepts the bounds, and drops unknown keys (the SDK spreads caller extras)', () => {
    const body = {
      name: 'x'.repeat(50),
      default_subscription: 'opt_out',
      description: 'd'.repeat(200),
      extra: 1,
    };
    expect(createTopicSchema.parse(body)).toEqual({
      name: 'x'.repeat(50),
      default_subscription: 'opt_out',
      description: 'd'.repeat(200),
    });
  });

  it('update: every key optional, description may be null, id accepted', () => {
    expect(updateTopicSchema.parse({ id: 'abc', description: null })).toEqual({
      id: 'abc',
      description: null,
    });
    expect(problem(updateTopicSchema, { name: '' })).toBe('name: must not be empty');
  });
});

describe('topic use-cases', () => {
  it('creates with defaults: no description, private', async () => {
    const topics = new MemoryTopics();
    const { id } = await createTopic(
      { teamId: 't', input: { name: 'News', default_subscription: 'opt_in' } },
      { topics },
    );
    expect(await topics.get('t', id)).toMatchObject({
      name: 'News',
      description: null,
      visibility: 'private',
    });
    expect(topics.events.map((e) => e.type)).toEqual(['topic.created']);
  });

  it('updates; default_subscription may be repeated but never changed (422 naming it)', async () => {
    const topics = new MemoryTopics();
    const { id } = await createTopic(
      { teamId: 't', input: { name: 'News', default_subscription: 'opt_in' } },
      { topics },
    );
    const update = (patch: object) => updateTopic({ teamId: 't', topicId: id, patch }, { topics });
    await expect(update({ id, name: 'Digest', default_subscription: 'opt_in' })).resolves.toEqual({ id });
    expect(await topics.get('t', id)).toMatchObject({ name: 'Digest', default_subscription: 'opt_in' });
    await expect(update({ default_subscription: 'opt_out' })).rejects.toMatchObject({
      statusCode: 422,
      errorName: 'validation_error',
      message: expect.stringMatching(/^default_subscription: cannot be changed/),
    });
    await expect(update({ id: '0190a0b0-0000-7000-8000-000000000000', name: 'x' })).rejects.toMatchObject({
      statusCode: 422,
      message: 'id: must be the id of the topic in the path',
    });
    expect(await topics.get('t', id)).toMatchObject({ name: 'Digest', default_subscription: 'opt_in' });
  });

  it('an update that changes nothing writes nothing (no topic.updated)', async () => {
    const topics = new MemoryTopics();
    const { id } = await createTopic(
      { teamId: 't', input: { name: 'News', default_subscription: 'opt_out', description: 'd' } },
      { topics },
    );
    await updateTopic(
      { teamId: 't', topicId: id, patch: { id, name: 'News', description: 'd' } },
      { topics },
    );
    expect(topics.writes).toEqual(['create']);
  });

  it('unknown topics are 404 for update and delete; delete removes it once', async () => {
    const topics = new MemoryTopics();
    const missing = '0190a0b0-0000-7000-8000-000000000000';
    await expect(
      updateTopic({ teamId: 't', topicId: missing, patch: { name: 'x' } }, { topics }),
    ).rejects.toMatchObject({ statusCode: 404, errorName: 'not_found', message: 'Topic not found' });
    const { id } = await createTopic(
      { teamId: 't', input: { name: 'News', default_subscription: 'opt_in' } },
      { topics },
    );
    await expect(deleteTopic({ teamId: 'other', topicId: id }, { topics })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(deleteTopic({ teamId: 't', topicId: id }, { topics })).resolves.toEqual({ id });
    await expect(deleteTopic({ teamId: 't', topicId: id }, { topics })).rejects.toMatchObject({
      statusCode: 404,
    });
    expect(topics.events.at(-1)).toMatchObject({ type: 'topic.deleted', data: { id, deleted: true } });
  });
});

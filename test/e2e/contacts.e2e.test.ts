/**
 * Contacts e2e: contacts, contact properties, segments (and the deprecated audiences), a
 * contact's segments and topic choices — driven with the official `resend` SDK (camelCase
 * options: `firstName`, `lastName`, `fallbackValue`, `segmentId`, `audienceId`, `contactId`)
 * against the whole stack, plus the contact.* events the writes publish on the team's stream.
 */
import { describe, expect, it } from 'vitest';
import type { CreateContactOptions } from 'resend';
import type { TeamEvent } from '@petrel/contracts';
import { createdId, fileStack, ok, uniqueAddress } from './helpers.js';

const stack = fileStack();

/** The contact events the stack published, oldest first. */
const teamEvents = async (): Promise<TeamEvent[]> => (await stack.teamEvents('contact.')) as TeamEvent[];

const newContact = (opts: CreateContactOptions) => createdId(stack.resend.contacts.create(opts));

describe('contacts', () => {
  it('creates, reads by id and by raw email, updates, lists and deletes a contact', async () => {
    const { resend } = stack;
    ok(await resend.contactProperties.create({ key: 'plan', type: 'string', fallbackValue: 'free' }));
    ok(await resend.contactProperties.create({ key: 'seats', type: 'number' }));

    const email = uniqueAddress('Ada+tag');
    const id = await createdId(
      resend.contacts.create({
        email,
        firstName: 'Ada',
        lastName: 'Lovelace',
        properties: { plan: 'pro', seats: 3 },
      }),
      'contact',
    );

    const byEmail = ok(await resend.contacts.get({ email: email.toUpperCase() }));
    expect(byEmail).toMatchObject({
      object: 'contact',
      id,
      email,
      first_name: 'Ada',
      last_name: 'Lovelace',
      unsubscribed: false,
      properties: { plan: { type: 'string', value: 'pro' }, seats: { type: 'number', value: 3 } },
    });
    expect((await resend.contacts.get(id)).data).toEqual(byEmail);
    // percent-encoded works too
    expect((await stack.http(`/contacts/${encodeURIComponent(email)}`)).body).toMatchObject({ id });

    const updated = await resend.contacts.update({
      email,
      firstName: null,
      unsubscribed: true,
      properties: { seats: null, plan: 'team' },
    });
    expect(updated).toMatchObject({ error: null, data: { object: 'contact', id } });
    expect((await resend.contacts.get({ id })).data).toMatchObject({
      first_name: null,
      last_name: 'Lovelace',
      unsubscribed: true,
      properties: { plan: { type: 'string', value: 'team' } },
    });

    const list = await resend.contacts.list();
    expect(list.error).toBeNull();
    expect(list.data?.object).toBe('list');
    expect(list.data?.data.map((c) => c.id)).toContain(id);
    expect(list.data?.data.find((c) => c.id === id)).toEqual({
      id,
      email,
      first_name: null,
      last_name: 'Lovelace',
      unsubscribed: true,
      created_at: expect.any(String),
    });

    const removed = await resend.contacts.remove({ email });
    expect(removed).toMatchObject({ error: null, data: { object: 'contact', contact: id, deleted: true } });
    expect((await resend.contacts.get(id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await resend.contacts.remove(id)).error).toMatchObject({ statusCode: 404 });

    const types = (await teamEvents()).filter((e) => e.data.id === id).map((e) => e.type);
    expect(types).toEqual(['contact.created', 'contact.updated', 'contact.deleted']);
  });

  it('refuses a second contact for the same mailbox, bad emails, unknown or mistyped properties', async () => {
    const { resend } = stack;
    const email = uniqueAddress('dup');
    await newContact({ email });
    expect((await resend.contacts.create({ email: email.toUpperCase() })).error).toEqual({
      statusCode: 422,
      name: 'validation_error',
      message: 'email: a contact with this email already exists',
    });
    expect((await resend.contacts.create({ email: 'not an address' })).error).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^email: is not a valid email address/),
    });
    expect(
      (await resend.contacts.create({ email: uniqueAddress('p'), properties: { nope: 'x' } })).error,
    ).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^properties\.nope: no such contact property/),
    });
    await resend.contactProperties.create({ key: 'age', type: 'number' });
    expect(
      (await resend.contacts.create({ email: uniqueAddress('p'), properties: { age: 'old' } })).error,
    ).toMatchObject({
      statusCode: 422,
      message: "properties.age: must be a number, the property's type",
    });
    expect((await resend.contacts.update({ email, properties: { age: 'x'.repeat(3) } })).error).toMatchObject(
      { statusCode: 422, message: expect.stringMatching(/^properties\.age:/) },
    );
    expect(
      (await resend.contacts.update({ email: uniqueAddress('none'), firstName: 'x' })).error,
    ).toMatchObject({
      statusCode: 404,
    });
  });
});

describe('contact properties', () => {
  it('create, list (snake_case on the wire, camelCase from the SDK), get, update, remove', async () => {
    const { resend } = stack;
    const id = await createdId(
      resend.contactProperties.create({ key: 'company_Name', type: 'string', fallbackValue: 'Acme' }),
      'contact_property',
    );
    expect(
      (await resend.contactProperties.create({ key: 'company_Name', type: 'string' })).error,
    ).toMatchObject({
      statusCode: 422,
      message: 'key: a contact property with this key already exists',
    });
    expect((await resend.contactProperties.create({ key: 'bad-key', type: 'string' })).error).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^key: /),
    });
    expect(
      (
        await resend.contactProperties.create({
          key: 'n',
          type: 'number',
          fallbackValue: 'x' as unknown as number,
        })
      ).error,
    ).toMatchObject({ statusCode: 422, message: expect.stringMatching(/^fallback_value: /) });

    const got = await resend.contactProperties.get(id);
    expect(got.data).toEqual({
      object: 'contact_property',
      id,
      key: 'company_Name',
      type: 'string',
      fallbackValue: 'Acme',
      createdAt: expect.any(String),
    });
    const list = await resend.contactProperties.list();
    expect(list.error).toBeNull();
    expect(list.data?.data.find((p) => p.id === id)).toMatchObject({
      key: 'company_Name',
      fallbackValue: 'Acme',
    });

    expect(await resend.contactProperties.update({ id, fallbackValue: 'Initech' })).toMatchObject({
      error: null,
      data: { object: 'contact_property', id },
    });
    expect((await resend.contactProperties.get(id)).data?.fallbackValue).toBe('Initech');
    expect((await resend.contactProperties.update({ id, fallbackValue: 5 })).error).toMatchObject({
      statusCode: 422,
    });

    const email = uniqueAddress('prop');
    await newContact({ email, properties: { company_Name: 'Globex' } });
    expect(await resend.contactProperties.remove(id)).toMatchObject({
      error: null,
      data: { object: 'contact_property', id, deleted: true },
    });
    expect((await resend.contacts.get({ email })).data?.properties).toEqual({});
    expect((await resend.contactProperties.get(id)).error).toMatchObject({ statusCode: 404 });
  });
});

describe('segments and audiences', () => {
  it('segments CRUD; contacts join on create or later; members listed; deleting a segment keeps its contacts', async () => {
    const { resend } = stack;
    const segmentId = await createdId(stack.resend.segments.create({ name: 'VIP' }));
    expect((await resend.segments.get(segmentId)).data).toEqual({
      object: 'segment',
      id: segmentId,
      name: 'VIP',
      created_at: expect.any(String),
    });
    expect((await resend.segments.update(segmentId, { name: 'Very VIP' })).error).toBeNull();
    expect((await resend.segments.get(segmentId)).data?.name).toBe('Very VIP');
    expect((await resend.segments.list()).data?.data.map((s) => s.id)).toContain(segmentId);

    const a = uniqueAddress('seg');
    const b = uniqueAddress('seg');
    const aId = await newContact({ email: a, segments: [{ id: segmentId }] });
    const bId = await newContact({ email: b });
    expect(
      (await resend.contacts.create({ email: uniqueAddress('x'), segments: [{ id: bId }] })).error,
    ).toMatchObject({
      statusCode: 422,
      message: 'segments[0].id: no such segment',
    });
    expect(await resend.contacts.segments.add({ email: b, segmentId })).toMatchObject({
      error: null,
      data: { id: segmentId },
    });
    expect((await resend.contacts.segments.add({ contactId: bId, segmentId })).error).toBeNull();

    const members = await resend.contacts.list({ segmentId });
    expect(members.data?.data.map((c) => c.id).sort()).toEqual([aId, bId].sort());
    const filtered = await stack.http(`/contacts?segment_id=${segmentId}&limit=1`);
    expect(filtered.body).toMatchObject({
      object: 'list',
      has_more: true,
      data: [{ id: expect.any(String) }],
    });

    const ofB = await resend.contacts.segments.list({ email: b });
    expect(ofB.data?.data).toEqual([{ id: segmentId, name: 'Very VIP', created_at: expect.any(String) }]);
    expect(await resend.contacts.segments.remove({ email: b, segmentId })).toMatchObject({
      error: null,
      data: { object: 'contact_segment', id: segmentId, deleted: true },
    });
    expect((await resend.contacts.segments.remove({ email: b, segmentId })).error).toMatchObject({
      statusCode: 404,
    });

    expect(await resend.segments.remove(segmentId)).toMatchObject({
      error: null,
      data: { object: 'segment', id: segmentId, deleted: true },
    });
    expect((await resend.contacts.get(aId)).error).toBeNull();
    expect((await resend.contacts.segments.list({ contactId: aId })).data?.data).toEqual([]);
    expect((await resend.contacts.list({ segmentId })).error).toMatchObject({ statusCode: 404 });
  });

  it('the legacy audience routes: an audience is a segment', async () => {
    const { resend } = stack;
    const created = await stack.http('/audiences', {
      method: 'POST',
      body: JSON.stringify({ name: 'Legacy' }),
    });
    expect(created).toMatchObject({ status: 201, body: { object: 'audience', name: 'Legacy' } });
    const audienceId = created.body.id as string;
    expect((await resend.segments.get(audienceId)).data?.name).toBe('Legacy');
    expect((await stack.http(`/audiences/${audienceId}`)).body).toMatchObject({
      object: 'audience',
      id: audienceId,
    });
    expect((await stack.http('/audiences')).body.data.map((s: { id: string }) => s.id)).toContain(audienceId);

    const email = uniqueAddress('aud');
    const viaAudience = await resend.contacts.create({ audienceId, email, firstName: 'Old' });
    expect(viaAudience.error).toBeNull();
    const id = viaAudience.data!.id;
    expect((await resend.contacts.list({ audienceId })).data?.data.map((c) => c.id)).toEqual([id]);
    expect((await resend.contacts.get({ audienceId, email })).data).toMatchObject({ id, first_name: 'Old' });
    expect((await resend.contacts.update({ audienceId, id, lastName: 'School' })).error).toBeNull();
    expect((await resend.contacts.get(id)).data?.last_name).toBe('School');
    expect((await resend.contacts.remove({ audienceId, email })).data).toMatchObject({
      deleted: true,
      contact: id,
    });
    const unknown = '01890000-0000-7000-8000-000000000000';
    expect(
      (await resend.contacts.create({ audienceId: unknown, email: uniqueAddress('aud') })).error,
    ).toMatchObject({
      statusCode: 404,
      message: 'Audience not found',
    });
    expect((await stack.http(`/audiences/${audienceId}`, { method: 'DELETE' })).body).toEqual({
      object: 'audience',
      id: audienceId,
      deleted: true,
    });
  });
});

describe('contact topics', () => {
  it('lists every topic with the contact choice or the default; updates with the bare array', async () => {
    const { resend } = stack;
    const news = await resend.topics.create({ name: 'News', defaultSubscription: 'opt_in' });
    const promos = await resend.topics.create({
      name: 'Promos',
      defaultSubscription: 'opt_out',
      description: 'Deals',
    });
    expect(news.error).toBeNull();
    expect(promos.error).toBeNull();
    const newsId = news.data!.id;
    const promosId = promos.data!.id;

    const email = uniqueAddress('topics');
    const id = await newContact({ email, topics: [{ id: promosId, subscription: 'opt_in' }] });
    const listed = await resend.contacts.topics.list({ email });
    expect(listed.error).toBeNull();
    const byId = new Map(listed.data!.data.map((t) => [t.id, t]));
    expect(byId.get(newsId)).toEqual({ id: newsId, name: 'News', description: null, subscription: 'opt_in' });
    expect(byId.get(promosId)).toEqual({
      id: promosId,
      name: 'Promos',
      description: 'Deals',
      subscription: 'opt_in',
    });

    const updated = await resend.contacts.topics.update({
      id,
      topics: [
        { id: newsId, subscription: 'opt_out' },
        { id: promosId, subscription: 'opt_in' },
      ],
    });
    expect(updated).toMatchObject({ error: null, data: { id } });
    const after = await resend.contacts.topics.list({ id });
    expect(after.data?.data.find((t) => t.id === newsId)?.subscription).toBe('opt_out');
    const event = (await teamEvents()).filter((e) => e.type === 'contact.topics.updated').at(-1);
    expect(event?.data).toEqual({ email, topics: [{ id: newsId, subscription: 'opt_out' }] });

    // { topics: [...] } (OpenAPI) is read the same way
    const wrapped = await stack.http(`/contacts/${email}/topics`, {
      method: 'PATCH',
      body: JSON.stringify({ topics: [{ id: newsId, subscription: 'opt_in' }] }),
    });
    expect(wrapped).toMatchObject({ status: 200, body: { object: 'contact_topics', id } });

    const unknown = '01890000-0000-7000-8000-000000000000';
    expect(
      (await resend.contacts.topics.update({ email, topics: [{ id: unknown, subscription: 'opt_in' }] }))
        .error,
    ).toMatchObject({ statusCode: 422, message: 'topics[0].id: no such topic' });
    expect(
      (
        await resend.contacts.topics.update({
          email,
          topics: [{ id: newsId, subscription: 'maybe' as 'opt_in' }],
        })
      ).error,
    ).toMatchObject({ statusCode: 422, message: expect.stringMatching(/^topics\[0\]\.subscription: /) });
  });
});

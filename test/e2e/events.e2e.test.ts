/**
 * Events API e2e through the official `resend` SDK (`resend.events.*`, camelCase `contactId` on
 * send): definitions by id and by URL-encoded name, the list, schema updates and deletion; sends
 * for a contact id and for an email (the contact is created), the payload typed by the schema
 * or refused naming the field, the exactly-one rule, and idempotent sends — against the whole
 * stack, reading the received-events log in Redis.
 */
import { describe, expect, it } from 'vitest';
import type { ReceivedEventRecord } from '@petrel/contracts';
import { createdId, fileStack, ok } from './helpers.js';

const stack = fileStack();

const MISSING = '0190a0b0-0000-7000-8000-000000000000';

/** The team's received events, newest first. */
async function received(): Promise<ReceivedEventRecord[]> {
  const { admin, keys, teamId } = stack;
  const ids = await admin.zrevrange(keys.receivedEvents(teamId), 0, -1);
  if (ids.length === 0) return [];
  const rows = await admin.hmget(keys.receivedEventData(teamId), ...ids);
  return rows.map((r) => JSON.parse(r!) as ReceivedEventRecord);
}

const contactId = (email: string) => createdId(stack.resend.contacts.create({ email }));

describe('events (SDK)', () => {
  it('creates, reads by id and by name, lists, updates and removes a definition', async () => {
    const name = 'user signed/up ü?#';
    const id = await createdId(
      stack.resend.events.create({ name, schema: { plan: 'string', seats: 'number' } }),
      'event',
    );

    const byId = ok(await stack.resend.events.get(id));
    expect(byId).toEqual({
      object: 'event',
      id,
      name,
      schema: { plan: 'string', seats: 'number' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await stack.resend.events.get(name)).data).toEqual(byId);

    const listed = ok(await stack.resend.events.list({ limit: 100 }));
    expect(listed).toMatchObject({ object: 'list', has_more: false });
    const { object: _object, ...item } = byId;
    expect(listed.data).toContainEqual(item);

    const updated = await stack.resend.events.update(name, { schema: { at: 'date' } });
    expect(updated.data).toEqual({ object: 'event', id });
    expect((await stack.resend.events.get(id)).data).toMatchObject({ schema: { at: 'date' } });
    expect((await stack.resend.events.update(id, { schema: null })).error).toBeNull();
    expect((await stack.resend.events.get(id)).data!.schema).toBeNull();

    const dup = await stack.resend.events.create({ name });
    expect(dup.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(dup.error!.message).toMatch(/^name: an event with this name already exists/);

    const removed = await stack.resend.events.remove(name);
    expect(removed.data).toEqual({ object: 'event', id, deleted: true });
    expect((await stack.resend.events.get(id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await stack.resend.events.remove(id)).error).toMatchObject({ statusCode: 404 });
    expect((await stack.resend.events.update(MISSING, { schema: null })).error).toMatchObject({
      statusCode: 404,
    });
  });

  it('refuses bad definitions naming the field', async () => {
    const bad = await stack.resend.events.create({ name: 'x', schema: { plan: 'text' as 'string' } });
    expect(bad.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(bad.error!.message).toMatch(/^schema\.plan: must be one of/);
    const reserved = await stack.resend.events.create({ name: 'resend:internal' });
    expect(reserved.error!.message).toMatch(/^name: must not start with the reserved prefix/);
  });

  it('serves an event named "send" on the path of POST /events/send', async () => {
    const created = await stack.resend.events.create({ name: 'send' });
    expect((await stack.resend.events.get('send')).data).toMatchObject({
      id: created.data!.id,
      name: 'send',
    });
    expect((await stack.resend.events.remove('send')).data).toEqual({
      object: 'event',
      id: created.data!.id,
      deleted: true,
    });
  });

  it('sends for a contact id, coercing the payload to the schema', async () => {
    await stack.resend.events.create({
      name: 'plan.changed',
      schema: { plan: 'string', seats: 'number', trial: 'boolean', renews: 'date' },
    });
    const contact = await contactId('events-by-id@example.com');
    const sent = await stack.resend.events.send({
      event: 'plan.changed',
      contactId: contact,
      payload: { plan: 'pro', seats: '42', trial: 'true', renews: '2027-01-01', extra: { a: 1 } },
    });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ object: 'event', event: 'plan.changed' });
    const [last] = await received();
    expect(last).toEqual({
      id: expect.any(String),
      name: 'plan.changed',
      contact_id: contact,
      payload: { plan: 'pro', seats: 42, trial: true, renews: '2027-01-01T00:00:00.000Z', extra: { a: 1 } },
      created_at: expect.any(String),
    });

    const unknown = await stack.resend.events.send({ event: 'plan.changed', contactId: MISSING });
    expect(unknown.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('sends for an email, creating the contact; an undefined event passes its payload as sent', async () => {
    const email = 'events-new@example.com';
    expect((await stack.resend.contacts.get({ email })).error).toMatchObject({ statusCode: 404 });
    const sent = await stack.resend.events.send({ event: 'never.defined', email, payload: { seats: '3' } });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ object: 'event', event: 'never.defined' });
    const contact = await stack.resend.contacts.get({ email });
    expect(contact.error).toBeNull();
    const [last] = await received();
    expect(last).toMatchObject({
      name: 'never.defined',
      contact_id: contact.data!.id,
      payload: { seats: '3' },
    });

    // the contact of that mailbox is found again, however it is spelled
    await stack.resend.events.send({ event: 'never.defined', email: 'Events-New@EXAMPLE.com' });
    expect((await received())[0]!.contact_id).toBe(contact.data!.id);
  });

  it('refuses a payload the schema cannot type, naming the field, and creates no contact', async () => {
    await stack.resend.events.create({ name: 'seats.bought', schema: { seats: 'number' } });
    const email = 'events-refused@example.com';
    const refused = await stack.resend.events.send({
      event: 'seats.bought',
      email,
      payload: { seats: 'many' },
    });
    expect(refused.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(refused.error!.message).toMatch(/^payload\.seats: must be a number/);
    expect((await stack.resend.contacts.get({ email })).error).toMatchObject({ statusCode: 404 });
  });

  it('requires exactly one of contact_id and email', async () => {
    const both = await stack.http('/events/send', {
      method: 'POST',
      body: JSON.stringify({ event: 'e', contact_id: MISSING, email: 'a@example.com' }),
    });
    expect(both.status).toBe(422);
    expect(both.body.message).toMatch(/^contact_id, email: give exactly one/);
    const neither = await stack.http('/events/send', {
      method: 'POST',
      body: JSON.stringify({ event: 'e' }),
    });
    expect(neither.status).toBe(422);
    expect(neither.body.message).toMatch(
      /^contact_id, email: exactly one of contact_id and email is required/,
    );
  });

  it('sends once under an Idempotency-Key: same body replays, another body conflicts', async () => {
    const contact = await contactId('events-idem@example.com');
    const before = (await received()).length;
    const opts = { event: 'idem.event', contactId: contact, payload: { n: 1 } };
    // events.send types only `headers` among its request options (no `idempotencyKey`)
    const idem = { headers: { 'Idempotency-Key': 'events-idem-1' } };
    const first = await stack.resend.events.send(opts, idem);
    const again = await stack.resend.events.send(opts, idem);
    expect(first.data).toEqual({ object: 'event', event: 'idem.event' });
    expect(again.data).toEqual(first.data);
    const after = await received();
    expect(after.length).toBe(before + 1);
    const other = await stack.resend.events.send({ ...opts, payload: { n: 2 } }, idem);
    expect(other.error).toMatchObject({ statusCode: 409, name: 'invalid_idempotent_request' });
    expect((await received()).length).toBe(before + 1);
  });
});

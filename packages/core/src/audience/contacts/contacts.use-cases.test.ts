import { describe, expect, it } from 'vitest';
import { MemoryContactProperties, MemoryContacts } from '@petrel/testing';
import { createContact, updateContact, updateContactTopics } from './contacts.use-cases.js';
import { createContactProperty, updateContactProperty } from './contact-properties.use-cases.js';

function ports() {
  const properties = new MemoryContactProperties();
  const contacts = new MemoryContacts(properties);
  return { contacts, properties };
}

describe('createContact', () => {
  it('stores a bare address, defaults, and properties by id', async () => {
    const p = ports();
    await createContactProperty({ teamId: 't', input: { key: 'plan', type: 'string' } }, p);
    const { id } = await createContact(
      { teamId: 't', input: { email: 'Ada@X.test', properties: { plan: 'pro' } } },
      p,
    );
    expect(await p.contacts.get('t', id)).toMatchObject({
      email: 'Ada@X.test',
      first_name: null,
      unsubscribed: false,
      properties: { plan: 'pro' },
    });
  });

  it.each([
    ['Ada <ada@x.test>', /^email: must be a bare address/],
    ['nope', /^email: is not a valid email address/],
  ])('refuses the email %s', async (email, message) => {
    await expect(createContact({ teamId: 't', input: { email } }, ports())).rejects.toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(message),
    });
  });

  it('refuses a taken mailbox, an unknown segment (or audience) and topic, naming the field', async () => {
    const p = ports();
    p.contacts.addSegment('t', 's1');
    await createContact({ teamId: 't', input: { email: 'a@x.test' } }, p);
    await expect(createContact({ teamId: 't', input: { email: 'A@X.TEST' } }, p)).rejects.toMatchObject({
      message: 'email: a contact with this email already exists',
    });
    await expect(
      createContact({ teamId: 't', input: { email: 'b@x.test', segments: ['s1', 'nope'] } }, p),
    ).rejects.toMatchObject({ message: 'segments[1].id: no such segment' });
    await expect(
      createContact({ teamId: 't', input: { email: 'b@x.test', segments: ['s1'], audience_id: 'gone' } }, p),
    ).rejects.toMatchObject({ message: 'audience_id: no such segment' });
    await expect(
      createContact(
        { teamId: 't', input: { email: 'b@x.test', topics: [{ id: 'x', subscription: 'opt_in' }] } },
        p,
      ),
    ).rejects.toMatchObject({ message: 'topics[0].id: no such topic' });
    await expect(createContact({ teamId: 'other', input: { email: 'a@x.test' } }, p)).resolves.toBeDefined();
  });
});

describe('updateContact', () => {
  it('applies the patch; null removes a property; the same email may be repeated, another not', async () => {
    const p = ports();
    await createContactProperty({ teamId: 't', input: { key: 'seats', type: 'number' } }, p);
    const { id } = await createContact(
      { teamId: 't', input: { email: 'a@x.test', properties: { seats: 2 } } },
      p,
    );
    await updateContact(
      {
        teamId: 't',
        idOrEmail: 'a@x.test',
        input: { email: 'A@x.test', last_name: 'L', properties: { seats: null } },
      },
      p,
    );
    expect(await p.contacts.get('t', id)).toMatchObject({ last_name: 'L', properties: {} });
    await expect(
      updateContact({ teamId: 't', idOrEmail: id, input: { email: 'b@x.test' } }, p),
    ).rejects.toMatchObject({ message: "email: a contact's email cannot be changed" });
    await expect(
      updateContact({ teamId: 't', idOrEmail: 'none@x.test', input: { first_name: 'x' } }, p),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('updateContactTopics', () => {
  it('writes choices; an unknown topic is a 422, an unknown contact a 404', async () => {
    const p = ports();
    p.contacts.addTopic('t', 'news');
    const { id } = await createContact({ teamId: 't', input: { email: 'a@x.test' } }, p);
    await updateContactTopics(
      { teamId: 't', idOrEmail: id, input: { topics: [{ id: 'news', subscription: 'opt_out' }] } },
      p,
    );
    expect(p.contacts.contacts.get(id)?.topics.get('news')).toBe('opt_out');
    await expect(
      updateContactTopics(
        { teamId: 't', idOrEmail: id, input: { topics: [{ id: 'gone', subscription: 'opt_in' }] } },
        p,
      ),
    ).rejects.toMatchObject({ message: 'topics[0].id: no such topic' });
    await expect(
      updateContactTopics({ teamId: 't', idOrEmail: 'x@x.test', input: { topics: [] } }, p),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('contact properties', () => {
  it('a fallback has the declared type; keys are unique per team; only the fallback changes', async () => {
    const p = ports();
    await expect(
      createContactProperty({ teamId: 't', input: { key: 'n', type: 'number', fallback_value: 'x' } }, p),
    ).rejects.toMatchObject({ message: "fallback_value: must be a number, the property's type" });
    const { id } = await createContactProperty(
      { teamId: 't', input: { key: 'n', type: 'number', fallback_value: 1 } },
      p,
    );
    await expect(
      createContactProperty({ teamId: 't', input: { key: 'n', type: 'string' } }, p),
    ).rejects.toMatchObject({
      message: 'key: a contact property with this key already exists',
    });
    await updateContactProperty({ teamId: 't', id, input: { fallback_value: null } }, p);
    expect((await p.properties.get('t', id))?.fallback_value).toBeNull();
    await expect(
      updateContactProperty({ teamId: 't', id, input: { fallback_value: 'x' } }, p),
    ).rejects.toMatchObject({ statusCode: 422 });
    await expect(
      updateContactProperty({ teamId: 't', id: 'missing', input: { fallback_value: 2 } }, p),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

/**
 * The contract of core's ContactsPort and ContactPropertiesPort
 * (packages/core/src/audience/contacts/ports.ts), run against the in-memory ports and the Redis
 * stores: contacts by id (any case) or email (as a mailbox), one contact per mailbox per team,
 * segments and topics checked in the contact's team, patches, and property definitions.
 */
import { expect, it } from 'vitest';
import type { ContactPropertiesPort, ContactsPort, NewContact } from '@petrel/core';
import { newContact } from '../new-contact.js';
import { UNKNOWN_ID, describePortContract, type MakePort } from './kit.js';

export interface ContactsContractPorts {
  contacts: ContactsPort;
  properties: ContactPropertiesPort;
  /** Creates a segment of the team; its id. */
  addSegment(teamId: string): Promise<string>;
  /** Creates a topic of the team; its id. */
  addTopic(teamId: string): Promise<string>;
}

export function describeContactsContract(name: string, makePorts: MakePort<ContactsContractPorts>): void {
  describePortContract(`ContactsPort and ContactPropertiesPort contract: ${name}`, makePorts, (setup) => {
    async function created(p: ContactsContractPorts, team: string, c: NewContact): Promise<string> {
      const res = await p.contacts.create(team, c);
      if (!res.ok) throw new Error(`create: ${res.reason}`);
      return res.id;
    }

    it('creates a contact read back by id in any case and by email as a mailbox', async () => {
      const { port: p, team } = setup();
      const c = newContact({ last_name: 'Lovelace', unsubscribed: true });
      const id = await created(p, team, c);
      const read = await p.contacts.get(team, id);
      expect(read).toMatchObject({
        id,
        email: c.email,
        first_name: 'Ada',
        last_name: 'Lovelace',
        unsubscribed: true,
        properties: {},
      });
      expect(read!.created_at).toBe(read!.updated_at);
      expect(await p.contacts.get(team, id.toUpperCase())).toEqual(read);
      expect(await p.contacts.get(team, c.email.toLowerCase())).toEqual(read);
      expect(await p.contacts.get(team, UNKNOWN_ID)).toBeNull();
      expect(await p.contacts.get(team, 'nobody@example.test')).toBeNull();
    });

    it('one contact per mailbox per team: the same address in another case is taken, in another team it is not', async () => {
      const { port: p, team, other } = setup();
      const c = newContact();
      await created(p, team, c);
      expect(await p.contacts.create(team, { ...c, email: c.email.toUpperCase() })).toEqual({
        ok: false,
        reason: 'email_taken',
      });
      expect(await p.contacts.create(other, c)).toMatchObject({ ok: true });
    });

    it("refuses an unknown segment or topic by its index, another team's included", async () => {
      const { port: p, team, other } = setup();
      const segment = await p.addSegment(team);
      const theirs = await p.addSegment(other);
      const topic = await p.addTopic(team);
      const theirTopic = await p.addTopic(other);
      expect(await p.contacts.create(team, newContact({ segments: [segment, UNKNOWN_ID] }))).toEqual({
        ok: false,
        reason: 'no_segment',
        index: 1,
      });
      expect(await p.contacts.create(team, newContact({ segments: [theirs] }))).toEqual({
        ok: false,
        reason: 'no_segment',
        index: 0,
      });
      expect(
        await p.contacts.create(
          team,
          newContact({
            topics: [
              { id: topic, subscription: 'opt_in' },
              { id: theirTopic, subscription: 'opt_in' },
            ],
          }),
        ),
      ).toEqual({ ok: false, reason: 'no_topic', index: 1 });
      // ids match in any case
      const ok = await p.contacts.create(
        team,
        newContact({
          segments: [segment.toUpperCase()],
          topics: [{ id: topic.toUpperCase(), subscription: 'opt_out' }],
        }),
      );
      expect(ok).toMatchObject({ ok: true });
    });

    it('update: absent keeps, null clears a name, a property is set and removed by id; unknown or foreign is null', async () => {
      const { port: p, team, other } = setup();
      const prop = await p.properties.create(team, { key: 'seats', type: 'number', fallback_value: null });
      if (!prop.ok) throw new Error('property');
      const c = newContact({ last_name: 'L', properties: { [prop.id]: 2 } });
      const id = await created(p, team, c);
      expect(await p.contacts.get(team, id)).toMatchObject({ properties: { seats: 2 } });
      expect(
        await p.contacts.update(team, c.email, { last_name: null, properties: { [prop.id]: 5 } }),
      ).toEqual({
        id,
      });
      const updated = await p.contacts.get(team, id);
      expect(updated).toMatchObject({ first_name: 'Ada', last_name: null, properties: { seats: 5 } });
      expect(updated!.updated_at > updated!.created_at).toBe(true);
      // a patch that changes nothing leaves updated_at
      expect(await p.contacts.update(team, id, { first_name: 'Ada' })).toEqual({ id });
      expect((await p.contacts.get(team, id))!.updated_at).toBe(updated!.updated_at);
      expect(
        await p.contacts.update(team, id, { unsubscribed: true, properties: { [prop.id]: null } }),
      ).toEqual({
        id,
      });
      expect(await p.contacts.get(team, id)).toMatchObject({ unsubscribed: true, properties: {} });
      expect(await p.contacts.update(team, UNKNOWN_ID, { first_name: 'x' })).toBeNull();
      expect(await p.contacts.update(other, id, { first_name: 'x' })).toBeNull();
      expect(await p.contacts.get(team, id)).toMatchObject({ first_name: 'Ada' });
    });

    it("setTopics: choices of the team's topics; an unknown topic by index, an unknown contact not_found", async () => {
      const { port: p, team, other } = setup();
      const topic = await p.addTopic(team);
      const theirs = await p.addTopic(other);
      const c = newContact();
      const id = await created(p, team, c);
      expect(await p.contacts.setTopics(team, c.email, [{ id: topic, subscription: 'opt_out' }])).toEqual({
        ok: true,
        id,
      });
      expect(
        await p.contacts.setTopics(team, id, [
          { id: topic, subscription: 'opt_in' },
          { id: theirs, subscription: 'opt_in' },
        ]),
      ).toEqual({ ok: false, reason: 'no_topic', index: 1 });
      expect(await p.contacts.setTopics(team, UNKNOWN_ID, [{ id: topic, subscription: 'opt_in' }])).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await p.contacts.setTopics(other, id, [])).toEqual({ ok: false, reason: 'not_found' });
    });

    it('properties: unique keys per team, read by id, fallback set and cleared; unknown or foreign is null/false', async () => {
      const { port: p, team, other } = setup();
      const a = await p.properties.create(team, { key: 'plan', type: 'string', fallback_value: 'free' });
      if (!a.ok) throw new Error('property');
      expect(await p.properties.create(team, { key: 'plan', type: 'number', fallback_value: null })).toEqual({
        ok: false,
        reason: 'key_taken',
      });
      expect(
        await p.properties.create(other, { key: 'plan', type: 'string', fallback_value: null }),
      ).toMatchObject({
        ok: true,
      });
      const read = await p.properties.get(team, a.id);
      expect(read).toMatchObject({ id: a.id, key: 'plan', type: 'string', fallback_value: 'free' });
      expect(Object.keys(read!).sort()).toEqual(['created_at', 'fallback_value', 'id', 'key', 'type']);
      const b = await p.properties.create(team, { key: 'seats', type: 'number', fallback_value: null });
      if (!b.ok) throw new Error('property');
      // newest first
      expect(await p.properties.all(team)).toEqual([await p.properties.get(team, b.id), read]);
      expect(await p.properties.get(other, a.id)).toBeNull();
      expect(await p.properties.get(team, UNKNOWN_ID)).toBeNull();
      expect(await p.properties.setFallback(team, a.id, 'trial')).toBe(true);
      expect(await p.properties.get(team, a.id)).toMatchObject({ fallback_value: 'trial' });
      expect(await p.properties.setFallback(team, a.id, null)).toBe(true);
      expect(await p.properties.get(team, a.id)).toMatchObject({ fallback_value: null });
      expect(await p.properties.setFallback(team, UNKNOWN_ID, 'x')).toBe(false);
      expect(await p.properties.setFallback(other, a.id, 'x')).toBe(false);
    });
  });
}

/**
 * sendEvent's order of work with in-memory ports: refusals before any write, the contact created
 * only for an accepted send, the hand-over before the answer is stored, replays under a key, and
 * a key freed after a refusal but kept after a failed hand-over.
 */
import { describe, expect, it } from 'vitest';
import type { CustomEventRecord, ReceivedEventRecord, SendEventInput } from '@petrel/contracts';
import { MemoryContactProperties, MemoryContacts, MemoryIdempotency } from '@petrel/testing';
import type { ReceivedEvent } from '../automations/ports.js';
import type { CustomEventsPort, SendEventPorts } from './ports.js';
import { sendEvent } from './use-cases.js';

const TEAM = 'team-1';

function ports(defs: CustomEventRecord[] = [], handOver?: (e: ReceivedEvent) => Promise<void>) {
  const log: string[] = [];
  const recorded: ReceivedEventRecord[] = [];
  const handed: ReceivedEvent[] = [];
  const idem = new MemoryIdempotency({ now: () => 5_000 });
  const events: CustomEventsPort = {
    get: async (_t, idOrName) => defs.find((d) => d.id === idOrName || d.name === idOrName) ?? null,
    list: async () => null,
    create: async () => ({ ok: false, reason: 'name_taken' }),
    setSchema: async () => null,
    remove: async () => null,
    recordReceived: async (_t, e) => {
      log.push('record');
      if (!recorded.some((r) => r.id === e.id)) recorded.push(e);
    },
  };
  const properties = new MemoryContactProperties();
  const p: SendEventPorts = {
    events,
    contacts: new MemoryContacts(properties),
    properties,
    clock: { now: () => Date.parse('2030-01-01T00:00:00Z') },
    triggers: {
      eventReceived: async (e) => {
        log.push('hand-over');
        await handOver?.(e);
        handed.push(e);
      },
    },
    idempotency: {
      claim: (t, k, fp) => idem.claim(t, k, fp),
      lookup: (t, k, fp) => idem.lookup(t, k, fp),
      release: (token) => idem.release(token),
      fingerprint: (_e, body) => idem.fingerprint('POST /events/send', body),
      complete: async (token, status, body) => {
        log.push('complete');
        idem.complete(token, { status, body });
      },
    },
  };
  return { p, log, recorded, handed, idem };
}

const send = (input: SendEventInput, p: SendEventPorts, idempotencyKey?: string) =>
  sendEvent({ teamId: TEAM, idempotencyKey, input, rawBody: input }, p);

describe('sendEvent', () => {
  it('creates the contact of a new email, records, hands over, then completes the key', async () => {
    const { p, log, recorded, handed } = ports();
    const res = await send({ event: 'user.signed_up', email: 'ada@example.com', payload: { a: 1 } }, p, 'k');
    expect(res).toEqual({
      status: 202,
      body: '{"object":"event","event":"user.signed_up"}',
      replayed: false,
    });
    const contact = await p.contacts.get(TEAM, 'ada@example.com');
    expect(handed).toEqual([
      {
        id: expect.any(String),
        teamId: TEAM,
        name: 'user.signed_up',
        contactId: contact!.id,
        payload: { a: 1 },
        receivedAt: '2030-01-01T00:00:00.000Z',
      },
    ]);
    expect(recorded).toEqual([
      {
        id: handed[0]!.id,
        name: 'user.signed_up',
        contact_id: contact!.id,
        payload: { a: 1 },
        created_at: '2030-01-01T00:00:00.000Z',
      },
    ]);
    expect(log).toEqual(['record', 'hand-over', 'complete']);
  });

  it('replays a completed key without a second event; a retry of an unfinished one keeps the id', async () => {
    let fail = true;
    const { p, handed, recorded, idem } = ports([], async () => {
      if (fail) throw new Error('queue down');
    });
    const input = { event: 'e', email: 'b@example.com' };
    await expect(send(input, p, 'k')).rejects.toThrow('queue down');
    expect(idem.calls.release).toBe(0);
    // the claim's lock expires and a retry takes it over, keeping its start (the memory clock is fixed)
    idem.keys.clear();
    fail = false;
    await send(input, p, 'k');
    expect(recorded).toHaveLength(1);
    expect(handed.map((e) => e.id)).toEqual([recorded[0]!.id]);
    const again = await send(input, p, 'k');
    expect(again).toMatchObject({ status: 202, replayed: true });
    expect(handed).toHaveLength(1);
    await send({ event: 'e', email: 'c@example.com' }, p, 'other');
    expect(handed[1]!.id).not.toBe(handed[0]!.id);
  });

  it('refuses a payload the schema cannot type before any contact exists, and frees the key', async () => {
    const def: CustomEventRecord = {
      id: 'd',
      name: 'bought',
      schema: { n: 'number' },
      created_at: '',
      updated_at: '',
    };
    const { p, log, idem } = ports([def]);
    await expect(
      send({ event: 'bought', email: 'c@example.com', payload: { n: 'x' } }, p, 'k'),
    ).rejects.toThrow(/^payload\.n: must be a number/);
    expect(await p.contacts.get(TEAM, 'c@example.com')).toBeNull();
    expect(log).toEqual([]);
    expect(idem.calls.release).toBe(1);
  });

  it('answers 404 for an unknown contact id', async () => {
    const { p } = ports();
    await expect(
      send({ event: 'e', contact_id: '0190a0b0-0000-7000-8000-000000000000' }, p),
    ).rejects.toMatchObject({
      statusCode: 404,
      message: 'Contact not found',
    });
  });
});

/**
 * The unsubscribe use-cases with in-memory ports: leaving through an email's link records that
 * email's `email.unsubscribed` (with its broadcast, for the counters), reading the page does not,
 * and the clock port decides expiry.
 */
import { describe, expect, it } from 'vitest';
import type { EmailEvent } from '@petrel/contracts';
import { emailToDeliver, MemoryAudienceState, MemoryContacts, MemoryTopics } from '@petrel/testing';
import type { EmailToDeliver } from '../emails/record.js';
import { signUnsubscribeToken } from './unsubscribe-token.js';
import {
  oneClickUnsubscribe,
  readPreferences,
  savePreferences,
  type UnsubscribePorts,
} from './unsubscribe.js';

const SECRET = 'unit-secret';
const NOW = Date.parse('2026-11-27T10:00:00.000Z');
const TEAM = 'team-1';
const BROADCAST = '0190a6b2-7c3d-7000-8000-0000000000b1';

/** Emails by id; `recorded` keeps the store's once-per-email rule (a repeat is 'repeat'). */
class MemoryUnsubscribes {
  readonly emails = new Map<string, EmailToDeliver>();
  readonly recorded: { teamId: string; emailId: string; event: EmailEvent }[] = [];

  async get(teamId: string, emailId: string) {
    const e = this.emails.get(emailId);
    return e && e.teamId === teamId ? e : null;
  }

  async recordUnsubscribe(teamId: string, emailId: string, event: EmailEvent) {
    if (!(await this.get(teamId, emailId))) return 'missing' as const;
    if (this.recorded.some((r) => r.teamId === teamId && r.emailId === emailId)) return 'repeat' as const;
    this.recorded.push({ teamId, emailId, event });
    return 'recorded' as const;
  }
}

function setup(opts: { topic?: string } = {}) {
  const emails = new MemoryUnsubscribes();
  const email = emailToDeliver({ teamId: TEAM, broadcastId: BROADCAST });
  emails.emails.set(email.id, email);
  const contacts = new MemoryContacts(undefined, { now: () => NOW });
  const topics = new MemoryTopics();
  const recipients = new MemoryAudienceState();
  if (opts.topic) {
    contacts.addTopic(TEAM, opts.topic);
    recipients.topic(opts.topic, 'opt_in');
    topics.topics.set(TEAM, [
      {
        id: opts.topic,
        name: 'News',
        description: null,
        default_subscription: 'opt_in',
        visibility: 'public',
        created_at: new Date(NOW).toISOString(),
      } as never,
    ]);
  }
  let n = 0;
  const ports: UnsubscribePorts = {
    contacts,
    topics,
    recipients,
    emails,
    secret: SECRET,
    clock: { now: () => NOW, monotonicMs: () => 0 },
    ids: { newEventId: () => `event-${++n}` },
  };
  const token = signUnsubscribeToken(
    {
      teamId: TEAM,
      emailId: email.id,
      recipient: 'ada@example.test',
      topicId: opts.topic ?? null,
      expiresAt: NOW / 1000 + 3600,
    },
    SECRET,
  );
  return { ports, emails, contacts, email, token };
}

describe('unsubscribe use-cases record the email’s unsubscribe', () => {
  it('one-click records email.unsubscribed with the email’s data (its broadcast) once; a second click is a repeat', async () => {
    const { ports, emails, contacts, email, token } = setup();
    await oneClickUnsubscribe(token, ports);
    await oneClickUnsubscribe(token, ports);
    expect(contacts.find(TEAM, 'ada@example.test')?.record.unsubscribed).toBe(true);
    expect(emails.recorded).toEqual([
      {
        teamId: TEAM,
        emailId: email.id,
        event: {
          id: 'event-1',
          type: 'email.unsubscribed',
          created_at: new Date(NOW).toISOString(),
          teamId: TEAM,
          data: expect.objectContaining({ email_id: email.id, broadcast_id: BROADCAST }),
        },
      },
    ]);
  });

  it('the page records nothing when read, nor when saved without leaving anything; turning the topic off records it', async () => {
    const topic = '0190a6b2-7c3d-7000-8000-0000000000c1';
    const { ports, emails, token } = setup({ topic });
    const shown = await readPreferences(token, ports);
    expect(shown.topics).toEqual([expect.objectContaining({ subscribed: true })]);
    await savePreferences(token, { subscribed: [topic], unsubscribeAll: false }, ports);
    expect(emails.recorded).toEqual([]);
    await savePreferences(token, { subscribed: [], unsubscribeAll: false }, ports);
    expect(emails.recorded.map((r) => r.event.type)).toEqual(['email.unsubscribed']);
  });

  it('leaving everything from the page records it', async () => {
    const { ports, emails, token } = setup();
    await savePreferences(token, { subscribed: [], unsubscribeAll: true }, ports);
    expect(emails.recorded).toHaveLength(1);
  });

  it('an email whose record is gone still unsubscribes the recipient, with nothing to count on', async () => {
    const { ports, emails, contacts, email, token } = setup();
    emails.emails.delete(email.id);
    await oneClickUnsubscribe(token, ports);
    expect(contacts.find(TEAM, 'ada@example.test')?.record.unsubscribed).toBe(true);
    expect(emails.recorded).toEqual([]);
  });

  it('expiry is read from the clock port', async () => {
    const { ports, token } = setup();
    const later = { ...ports, clock: { now: () => NOW + 2 * 3600_000, monotonicMs: () => 0 } };
    await expect(oneClickUnsubscribe(token, later)).rejects.toThrow(/has expired/);
  });
});

import { describe, expect, it } from 'vitest';
import { decideRecipient, type TopicFacts } from './recipient-decision.js';
import type { RecipientState } from './ports.js';

const nobody: RecipientState = {
  suppressed: false,
  contactId: null,
  unsubscribed: false,
  subscription: null,
};
const contact = (over: Partial<RecipientState> = {}): RecipientState => ({
  ...nobody,
  contactId: 'c1',
  ...over,
});
const optIn: TopicFacts = { id: 't', default: 'opt_in' };
const optOut: TopicFacts = { id: 't', default: 'opt_out' };

describe('decideRecipient (topic rule, unsubscribe, suppression)', () => {
  it.each([
    ['contact opted in, default opt_out', contact({ subscription: 'opt_in' }), optOut, { send: true }],
    ['contact opted in, default opt_in', contact({ subscription: 'opt_in' }), optIn, { send: true }],
    [
      'contact opted out, default opt_in',
      contact({ subscription: 'opt_out' }),
      optIn,
      { send: false, reason: 'opted_out' },
    ],
    ['non-contact, default opt_in', nobody, optIn, { send: true }],
    ['non-contact, default opt_out', nobody, optOut, { send: false, reason: 'not_opted_in' }],
    ['contact without a choice, default opt_in', contact(), optIn, { send: true }],
    ['contact without a choice, default opt_out', contact(), optOut, { send: false, reason: 'not_opted_in' }],
    [
      'unsubscribed contact opted in',
      contact({ unsubscribed: true, subscription: 'opt_in' }),
      optIn,
      { send: false, reason: 'unsubscribed' },
    ],
    [
      'suppressed non-contact, default opt_in',
      { ...nobody, suppressed: true },
      optIn,
      { send: false, reason: 'suppressed' },
    ],
    ['suppressed, no topic', { ...nobody, suppressed: true }, null, { send: false, reason: 'suppressed' }],
    [
      'unsubscribed contact, no topic (transactional mail)',
      contact({ unsubscribed: true }),
      null,
      { send: true },
    ],
    ['opted-out contact, no topic', contact({ subscription: 'opt_out' }), null, { send: true }],
    [
      'topic deleted since acceptance',
      contact({ subscription: 'opt_in' }),
      { id: 't', default: null },
      { send: false, reason: 'topic_deleted' },
    ],
  ] as const)('%s', (_name, state, topic, verdict) => {
    expect(decideRecipient(state, topic)).toEqual(verdict);
  });

  it('list mail (a broadcast) never reaches an unsubscribed contact, topic or not', () => {
    expect(decideRecipient(contact({ unsubscribed: true }), null, true)).toEqual({
      send: false,
      reason: 'unsubscribed',
    });
    expect(decideRecipient(contact(), null, true)).toEqual({ send: true });
    expect(decideRecipient(nobody, null, true)).toEqual({ send: true });
    expect(decideRecipient({ ...nobody, suppressed: true }, null, true)).toEqual({
      send: false,
      reason: 'suppressed',
    });
  });
});

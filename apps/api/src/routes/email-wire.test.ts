import { describe, expect, it } from 'vitest';
import type { EmailRecord } from '@petrel/store';
import { emailContent } from '@petrel/testing';
import { batchMode, emailToWire } from './email-wire.js';

const record = (over: Partial<EmailRecord> = {}): EmailRecord => ({
  id: 'e1',
  teamId: 'team',
  createdAt: '2026-01-02T03:04:05.000Z',
  createdMs: 0,
  status: 'delivered',
  lane: 'send',
  messageId: '<e1@acme.test>',
  content: emailContent({
    subject: 'Hi',
    html: '<p>Hi</p>',
    text: undefined,
    tags: [{ name: 'k', value: 'v' }],
  }),
  scheduledAt: null,
  attempts: 1,
  template: null,
  broadcastId: null,
  contactId: null,
  hasAttachments: false,
  ...over,
});

describe('emailToWire', () => {
  it('lists an email with empty lists as null and its status as last_event', () => {
    expect(emailToWire(record(), false)).toEqual({
      id: 'e1',
      to: ['ada@example.test'],
      from: 'Acme <hello@acme.test>',
      created_at: '2026-01-02T03:04:05.000Z',
      subject: 'Hi',
      bcc: null,
      cc: null,
      reply_to: null,
      last_event: 'delivered',
      scheduled_at: null,
      message_id: '<e1@acme.test>',
    });
  });

  it('adds object, bodies, tags, and the template id when sent from one', () => {
    expect(emailToWire(record({ template: { id: 't1', versionId: 'v1' } }), true)).toMatchObject({
      object: 'email',
      html: '<p>Hi</p>',
      text: null,
      tags: [{ name: 'k', value: 'v' }],
      template_id: 't1',
    });
    expect(emailToWire(record(), true)).not.toHaveProperty('template_id');
  });

  it('adds the per-recipient outcomes to the full form when some recipients were refused', () => {
    const recipients = [
      { email: 'ada@example.test', status: 'delivered' as const },
      {
        email: 'josé@example.test',
        status: 'bounced' as const,
        bounce: {
          type: 'Permanent' as const,
          subType: 'General',
          message: 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
          diagnosticCode: ['smtp; 553 5.6.7 recipient josé@example.test needs SMTPUTF8'],
        },
      },
    ];
    expect(emailToWire(record(), true, recipients)).toMatchObject({ last_event: 'delivered', recipients });
    expect(emailToWire(record(), false, recipients)).not.toHaveProperty('recipients');
    expect(emailToWire(record(), true, [])).not.toHaveProperty('recipients');
    expect(emailToWire(record(), true)).not.toHaveProperty('recipients');
  });
});

describe('batchMode', () => {
  const req = (value: string | undefined) => ({ get: () => value }) as never;
  it.each([
    [undefined, 'strict'],
    ['', 'strict'],
    ['Strict', 'strict'],
    ['PERMISSIVE', 'permissive'],
  ])('%j → %s', (value, mode) => {
    expect(batchMode(req(value))).toBe(mode);
  });

  it('refuses any other value with a 400', () => {
    expect(() => batchMode(req('lenient'))).toThrow(
      expect.objectContaining({
        statusCode: 400,
        message: 'x-batch-validation: must be strict or permissive',
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { emailToDeliver, ManualClock, SequentialIds } from '@petrel/testing';
import { emailEvent, emailEventData } from './email-event.js';

describe('emailEventData', () => {
  it('a plain email: the webhook fields, lists only when not empty', () => {
    const email = emailToDeliver();
    expect(emailEventData(email)).toEqual({
      email_id: email.id,
      created_at: email.createdAt,
      message_id: email.messageId,
      from: email.content.from,
      to: email.content.to,
      subject: email.content.subject,
    });
  });

  it('cc, bcc, broadcast, template and tags (as an object) when present; extra last', () => {
    const email = emailToDeliver({
      broadcastId: 'b-1',
      template: { id: 'tpl-1', versionId: 'v-1' },
      content: {
        cc: ['c@example.test'],
        bcc: ['d@example.test'],
        tags: [{ name: 'category', value: 'welcome' }],
      },
    });
    expect(emailEventData(email, { bounce: { type: 'Permanent' } })).toMatchObject({
      cc: ['c@example.test'],
      bcc: ['d@example.test'],
      broadcast_id: 'b-1',
      template_id: 'tpl-1',
      tags: { category: 'welcome' },
      bounce: { type: 'Permanent' },
    });
  });
});

describe('emailEvent', () => {
  it('stamps a fresh id and the clock time', () => {
    const email = emailToDeliver();
    const stamp = {
      clock: new ManualClock(Date.parse('2026-03-04T05:06:07.000Z')),
      ids: new SequentialIds(),
    };
    expect(emailEvent('email.sent', 'team-1', email, undefined, stamp)).toEqual({
      id: 'evt-1',
      type: 'email.sent',
      created_at: '2026-03-04T05:06:07.000Z',
      teamId: 'team-1',
      data: emailEventData(email),
    });
  });
});

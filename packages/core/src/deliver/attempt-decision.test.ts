import { describe, expect, it } from 'vitest';
import type { EmailStatus } from '@petrel/contracts';
import { decideAttempt, type AttemptCase } from './attempt-decision.js';
import type { RejectedRecipient, SendResult } from './ports.js';

const sent: SendResult = { kind: 'sent', code: 250, response: '250 2.0.0 OK queued as ABC' };
const hard: SendResult = { kind: 'hard_fail', code: 550, detail: '550 5.1.1 no such user (RCPT TO)' };
const soft: SendResult = {
  kind: 'soft_fail',
  code: 451,
  detail: '451 4.7.1 greylisted',
  retryAfterMs: 300_000,
};
const noReply: SendResult = { kind: 'soft_fail', detail: 'ETIMEDOUT: connection timed out (CONN)' };
const recipients = ['ada@example.test', 'josé@example.test', 'bob@bücher.example'];
/** A 553 5.6.7 the mailer makes for a UTF-8 local part when the hop lacks SMTPUTF8 (RFC 6531). */
const needsUtf8: RejectedRecipient = {
  address: 'josé@example.test',
  code: 553,
  enhancedCode: '5.6.7',
  permanent: true,
  detail: 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
};
/** A server's own refusal at RCPT TO, the address as it went on the wire (A-labels). */
const unknownUser: RejectedRecipient = {
  address: 'bob@xn--bcher-kva.example',
  code: 550,
  enhancedCode: '5.1.1',
  permanent: true,
  detail: '550 5.1.1 <bob@xn--bcher-kva.example>: Recipient address rejected: User unknown',
};
const greylisted: RejectedRecipient = {
  address: 'bob@xn--bcher-kva.example',
  code: 450,
  enhancedCode: '4.2.0',
  permanent: false,
  detail: '450 4.2.0 <bob@xn--bcher-kva.example>: Recipient address rejected: Greylisted',
};
const sentInPart = (...rejected: RejectedRecipient[]): SendResult => ({ ...sent, rejected });

describe('decideAttempt', () => {
  // retries = 3: attemptsMade 0..2 have retries left, 3 is the last attempt
  it.each<[string, SendResult, number, EmailStatus, AttemptCase, [string, EmailStatus][]]>([
    [
      '250 on the first attempt',
      sent,
      0,
      'queued',
      'delivered',
      [
        ['email.sent', 'sent'],
        ['email.delivered', 'delivered'],
      ],
    ],
    [
      '250 after a delay',
      sent,
      2,
      'delivery_delayed',
      'delivered',
      [
        ['email.sent', 'sent'],
        ['email.delivered', 'delivered'],
      ],
    ],
    [
      '250 on the last attempt',
      sent,
      3,
      'delivery_delayed',
      'delivered',
      [
        ['email.sent', 'sent'],
        ['email.delivered', 'delivered'],
      ],
    ],
    [
      '250 for a scheduled email',
      sent,
      0,
      'scheduled',
      'delivered',
      [
        ['email.sent', 'sent'],
        ['email.delivered', 'delivered'],
      ],
    ],
    [
      '250 with one recipient refused',
      sentInPart(needsUtf8),
      0,
      'queued',
      'delivered-in-part',
      [
        ['email.sent', 'sent'],
        ['email.delivered', 'delivered'],
      ],
    ],
    [
      '250 after a delay, two recipients refused',
      sentInPart(needsUtf8, unknownUser),
      2,
      'delivery_delayed',
      'delivered-in-part',
      [
        ['email.sent', 'sent'],
        ['email.delivered', 'delivered'],
      ],
    ],
    ['5xx on the first attempt', hard, 0, 'queued', 'bounced-permanent', [['email.bounced', 'bounced']]],
    ['5xx after a delay', hard, 1, 'delivery_delayed', 'bounced-permanent', [['email.bounced', 'bounced']]],
    [
      '5xx with no retries left',
      hard,
      3,
      'delivery_delayed',
      'bounced-permanent',
      [['email.bounced', 'bounced']],
    ],
    [
      '4xx, first time',
      soft,
      0,
      'queued',
      'delay-first-time',
      [['email.delivery_delayed', 'delivery_delayed']],
    ],
    [
      '4xx, first time for a scheduled email',
      soft,
      0,
      'scheduled',
      'delay-first-time',
      [['email.delivery_delayed', 'delivery_delayed']],
    ],
    ['4xx again', soft, 1, 'delivery_delayed', 'delay-again', []],
    ['4xx, last retry left', soft, 2, 'delivery_delayed', 'delay-again', []],
    ['4xx, retries spent', soft, 3, 'delivery_delayed', 'bounced-temporary', [['email.bounced', 'bounced']]],
    [
      'no reply, retries spent',
      noReply,
      5,
      'delivery_delayed',
      'bounced-temporary',
      [['email.bounced', 'bounced']],
    ],
    // a delay whose record write was lost: the status still says queued
    [
      '4xx again, status not moved yet',
      soft,
      1,
      'queued',
      'delay-first-time',
      [['email.delivery_delayed', 'delivery_delayed']],
    ],
  ])('%s', (_name, result, attemptsMade, status, expectedCase, events) => {
    const d = decideAttempt({ result, recipients, attemptsMade, retries: 3, status });
    expect(d.case).toBe(expectedCase);
    expect(d.events.map((e) => [e.type, e.status])).toEqual(events);
  });

  it.each<[AttemptCase, SendResult, number, unknown]>([
    ['delivered', sent, 0, { kind: 'delivered' }],
    ['delivered-in-part', sentInPart(needsUtf8), 0, { kind: 'delivered' }],
    ['bounced-permanent', hard, 0, { kind: 'bounced', bounce: 'Permanent', code: 550, detail: hard.detail }],
    ['bounced-temporary', soft, 3, { kind: 'bounced', bounce: 'Temporary', code: 451, detail: soft.detail }],
    ['delay-first-time', soft, 0, { kind: 'delayed', detail: soft.detail, retryAfterMs: 300_000 }],
    ['delay-again', noReply, 1, { kind: 'delayed', detail: noReply.detail, retryAfterMs: undefined }],
  ])('%s → outcome', (_case, result, attemptsMade, outcome) => {
    const status = attemptsMade > 0 ? 'delivery_delayed' : 'queued';
    expect(decideAttempt({ result, recipients, attemptsMade, retries: 3, status }).outcome).toEqual(outcome);
  });

  it.each<[string, SendResult, number, Record<string, unknown>]>([
    ['delivered: the server reply', sent, 0, { smtp_response: sent.response }],
    ['delivered, an empty refusal list: as delivered', sentInPart(), 0, { smtp_response: sent.response }],
    [
      'delivered in part: every recipient in envelope order, the refused ones with their reason',
      sentInPart(unknownUser, needsUtf8),
      0,
      {
        smtp_response: sent.response,
        recipients: [
          { email: 'ada@example.test', status: 'delivered' },
          {
            email: 'josé@example.test',
            status: 'bounced',
            bounce: {
              type: 'Permanent',
              subType: 'General',
              message: needsUtf8.detail,
              diagnosticCode: [`smtp; 553 5.6.7 ${needsUtf8.detail}`],
            },
          },
          {
            email: 'bob@bücher.example',
            status: 'bounced',
            bounce: {
              type: 'Permanent',
              subType: 'General',
              message: unknownUser.detail,
              diagnosticCode: [`smtp; ${unknownUser.detail}`],
            },
          },
        ],
      },
    ],
    [
      'delivered in part: a 4xx for one recipient is a Temporary bounce of that recipient',
      sentInPart(greylisted),
      0,
      {
        smtp_response: sent.response,
        recipients: [
          { email: 'ada@example.test', status: 'delivered' },
          { email: 'josé@example.test', status: 'delivered' },
          {
            email: 'bob@bücher.example',
            status: 'bounced',
            bounce: {
              type: 'Temporary',
              subType: 'General',
              message: greylisted.detail,
              diagnosticCode: [`smtp; ${greylisted.detail}`],
            },
          },
        ],
      },
    ],
    [
      'Permanent bounce (RFC 3464 diagnostic)',
      hard,
      0,
      {
        bounce: {
          type: 'Permanent',
          subType: 'General',
          message: hard.detail,
          diagnosticCode: [`smtp; ${hard.detail}`],
        },
      },
    ],
    [
      'Permanent bounce decided before any reply: the code it stands for leads the diagnostic',
      {
        kind: 'hard_fail',
        code: 553,
        enhancedCode: '5.6.7',
        detail: 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
      },
      0,
      {
        bounce: {
          type: 'Permanent',
          subType: 'General',
          message: 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
          diagnosticCode: [
            'smtp; 553 5.6.7 recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
          ],
        },
      },
    ],
    [
      'Temporary bounce',
      soft,
      3,
      {
        bounce: {
          type: 'Temporary',
          subType: 'RetriesExhausted',
          message: `Delivery retries exhausted: ${soft.detail}`,
          diagnosticCode: [`smtp; ${soft.detail}`],
        },
      },
    ],
    [
      'Temporary bounce without a reply: no diagnostic',
      noReply,
      3,
      {
        bounce: {
          type: 'Temporary',
          subType: 'RetriesExhausted',
          message: `Delivery retries exhausted: ${noReply.detail}`,
          diagnosticCode: [],
        },
      },
    ],
    ['delay with a reply code', soft, 0, { delay: { message: soft.detail, code: 451 } }],
    ['delay without a reply', noReply, 0, { delay: { message: noReply.detail, code: null } }],
  ])('event data: %s', (_name, result, attemptsMade, data) => {
    const events = decideAttempt({ result, recipients, attemptsMade, retries: 3, status: 'queued' }).events;
    expect(events.at(-1)?.data).toEqual(data);
  });

  it('with no retries configured, the first temporary failure bounces', () => {
    expect(
      decideAttempt({ result: soft, recipients, attemptsMade: 0, retries: 0, status: 'queued' }).case,
    ).toBe('bounced-temporary');
  });

  it('a deferral (no server asked: a warm-up cap) never ends the ladder and is marked for the job to wait', () => {
    const deferral: SendResult = {
      kind: 'soft_fail',
      detail: "warm-up: every address of sending pool warm reached today's cap (2) for warm-b.test",
      retryAfterMs: 4_000,
      deferred: true,
    };
    // the ladder is spent, yet no bounce: the deferral is not an attempt
    const last = decideAttempt({
      result: deferral,
      recipients,
      attemptsMade: 3,
      retries: 3,
      status: 'queued',
    });
    expect(last.case).toBe('delay-first-time');
    expect(last.events.map((e) => e.type)).toEqual(['email.delivery_delayed']);
    expect(last.outcome).toEqual({
      kind: 'delayed',
      detail: deferral.detail,
      retryAfterMs: 4_000,
      deferred: true,
    });
    const again = decideAttempt({
      result: deferral,
      recipients,
      attemptsMade: 9,
      retries: 3,
      status: 'delivery_delayed',
    });
    expect(again).toMatchObject({ case: 'delay-again', events: [], outcome: { deferred: true } });
    // a real temporary failure is not marked
    expect(
      decideAttempt({ result: soft, recipients, attemptsMade: 0, retries: 3, status: 'queued' }).outcome,
    ).not.toHaveProperty('deferred');
  });
});

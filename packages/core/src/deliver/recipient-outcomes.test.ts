import { describe, expect, it } from 'vitest';
import type { EmailEvent } from '@petrel/contracts';
import type { RejectedRecipient } from './ports.js';
import { recipientOutcomes, recordedRecipientOutcomes, smtpDiagnostic } from './recipient-outcomes.js';

const refused = (address: string, over: Partial<RejectedRecipient> = {}): RejectedRecipient => ({
  address,
  code: 550,
  enhancedCode: '5.1.1',
  permanent: true,
  detail: `550 5.1.1 <${address}>: User unknown`,
  ...over,
});

describe('recipientOutcomes', () => {
  it('matches a refusal to its recipient however the domain and case are spelled', () => {
    const out = recipientOutcomes(
      ['Ada@Bücher.example', 'bob@example.test'],
      [refused('ada@xn--bcher-kva.example')],
    );
    expect(out.map((o) => [o.email, o.status])).toEqual([
      ['Ada@Bücher.example', 'bounced'],
      ['bob@example.test', 'delivered'],
    ]);
  });

  it('keeps a UTF-8 local part as it is (only the domain has an ASCII form)', () => {
    const out = recipientOutcomes(['josé@bücher.example'], [refused('josé@xn--bcher-kva.example')]);
    expect(out).toMatchObject([{ email: 'josé@bücher.example', status: 'bounced' }]);
  });

  it('lists a refusal that matches no recipient as reported, after the recipients', () => {
    const out = recipientOutcomes(['ada@example.test'], [refused('stray@example.test')]);
    expect(out.map((o) => [o.email, o.status])).toEqual([
      ['ada@example.test', 'delivered'],
      ['stray@example.test', 'bounced'],
    ]);
  });

  it('a refusal without a reply code has no diagnostic', () => {
    const [out] = recipientOutcomes(
      ['ada@example.test'],
      [{ address: 'ada@example.test', permanent: false, detail: 'rejected' }],
    );
    expect(out).toEqual({
      email: 'ada@example.test',
      status: 'bounced',
      bounce: { type: 'Temporary', subType: 'General', message: 'rejected', diagnosticCode: [] },
    });
  });
});

describe('smtpDiagnostic', () => {
  it.each([
    [550, '5.1.1', '550 5.1.1 no such user', 'smtp; 550 5.1.1 no such user'],
    [451, undefined, '451-first line', 'smtp; 451-first line'],
    [553, '5.6.7', 'needs SMTPUTF8', 'smtp; 553 5.6.7 needs SMTPUTF8'],
    [550, undefined, 'refused here', 'smtp; 550 refused here'],
    // a detail that merely starts with the digits is not a reply
    [550, undefined, '5501 things', 'smtp; 550 5501 things'],
  ])('%i %s %s', (code, enhanced, detail, expected) => {
    expect(smtpDiagnostic(code, enhanced, detail)).toBe(expected);
  });
});

describe('recordedRecipientOutcomes', () => {
  const list = [{ email: 'ada@example.test', status: 'delivered' }];
  it.each<[string, Pick<EmailEvent, 'type' | 'data'>[], unknown]>([
    ['no event yet', [], undefined],
    [
      'delivered to every recipient',
      [{ type: 'email.delivered', data: { smtp_response: '250' } }],
      undefined,
    ],
    ['delivered in part', [{ type: 'email.delivered', data: { recipients: list } }], list],
    [
      'the latest email.delivered counts (a re-run after a crash sent again)',
      [
        { type: 'email.delivered', data: { recipients: list } },
        { type: 'email.delivered', data: { smtp_response: '250' } },
        { type: 'email.opened', data: {} },
      ],
      undefined,
    ],
    ['not a list', [{ type: 'email.delivered', data: { recipients: 'x' } }], undefined],
    ['other events only', [{ type: 'email.sent', data: { recipients: list } }], undefined],
    ['a bounce lists them too', [{ type: 'email.bounced', data: { recipients: list } }], list],
  ])('%s', (_name, timeline, expected) => {
    expect(recordedRecipientOutcomes(timeline)).toEqual(expected);
  });
});

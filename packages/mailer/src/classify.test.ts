import { describe, expect, it } from 'vitest';
import {
  classifySendError,
  classifySendInfo,
  enhancedCode,
  parseRetryHint,
  smtpUtf8Failure,
  smtpUtf8Refusal,
  withRejected,
  type SendResult,
} from './classify.js';

/** An error shaped the way nodemailer 10 builds it (smtp-connection `_formatError`). */
function smtpError(code: string, response: string | undefined, command: string, message = 'failed'): Error {
  const err = new Error(response ? `${message}: ${response}` : message) as Error & Record<string, unknown>;
  err.code = code;
  if (response) {
    err.response = response;
    const m = /^\d{3}/.exec(response);
    if (m) err.responseCode = Number(m[0]);
  }
  err.command = command;
  return err;
}

function systemError(code: string, wrapper: string, message: string): Error {
  const err = new Error(message) as Error & Record<string, unknown>;
  err.code = wrapper;
  err.originalCode = code;
  err.command = 'CONN';
  return err;
}

type Expected = Partial<SendResult> & { kind: SendResult['kind'] };

const table: [string, unknown, Expected][] = [
  [
    'Gmail 421-4.7.0 rate limit at greeting',
    smtpError(
      'EPROTOCOL',
      '421-4.7.0 [203.0.113.5] Our system has detected an unusual rate of\n421-4.7.0 unsolicited mail originating from your IP address. To protect our\n421 4.7.0 users from spam, mail sent from your IP address has been temporarily rate limited. 5b1f17b1804b1-4321',
      'CONN',
    ),
    { kind: 'soft_fail', code: 421, enhancedCode: '4.7.0' },
  ],
  [
    '450 4.2.1 user receiving mail too quickly',
    smtpError(
      'EENVELOPE',
      '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered. Please resend your message at a later point.',
      'RCPT TO',
    ),
    { kind: 'soft_fail', code: 450, enhancedCode: '4.2.1', retryAfterMs: undefined },
  ],
  [
    '451 4.7.1 greylisting with a hint',
    smtpError(
      'EENVELOPE',
      '451 4.7.1 <a@example.com>: Recipient address rejected: Greylisted, please try again in 300 seconds',
      'RCPT TO',
    ),
    { kind: 'soft_fail', code: 451, enhancedCode: '4.7.1', retryAfterMs: 300_000 },
  ],
  [
    '451 greylisted for N seconds',
    smtpError(
      'EENVELOPE',
      '451 4.7.1 Greylisted for 60 seconds (see http://example.com/greylisting)',
      'RCPT TO',
    ),
    { kind: 'soft_fail', code: 451, retryAfterMs: 60_000 },
  ],
  [
    '452 4.2.2 mailbox full, try again later (no number)',
    smtpError('EENVELOPE', '452 4.2.2 Mailbox full. Please try again later', 'RCPT TO'),
    { kind: 'soft_fail', code: 452, enhancedCode: '4.2.2', retryAfterMs: undefined },
  ],
  [
    '421 at DATA end with retry after 2 minutes',
    smtpError('EMESSAGE', '421 4.3.2 Service shutting down, retry after 2 minutes', 'DATA'),
    { kind: 'soft_fail', code: 421, retryAfterMs: 120_000 },
  ],
  [
    '550 5.1.1 unknown user (Gmail)',
    smtpError(
      'EENVELOPE',
      "550-5.1.1 The email account that you tried to reach does not exist. Please try\n550-5.1.1 double-checking the recipient's email address for typos or\n550 5.1.1 unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser",
      'RCPT TO',
    ),
    { kind: 'hard_fail', code: 550, enhancedCode: '5.1.1', command: 'RCPT TO' },
  ],
  [
    '552 5.3.4 message too big at DATA end',
    smtpError('EMESSAGE', '552 5.3.4 Message size exceeds fixed maximum message size', 'DATA'),
    { kind: 'hard_fail', code: 552, enhancedCode: '5.3.4' },
  ],
  [
    '554 5.7.1 rejected by policy',
    smtpError(
      'EMESSAGE',
      '554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org',
      'DATA',
    ),
    { kind: 'hard_fail', code: 554, enhancedCode: '5.7.1' },
  ],
  [
    '554 at the connection greeting',
    smtpError('EPROTOCOL', '554 mx.example.com ESMTP not accepting messages', 'CONN', 'Invalid greeting'),
    { kind: 'hard_fail', code: 554, command: 'CONN' },
  ],
  [
    '550 with an enhanced 4.x.x code is temporary',
    smtpError('EENVELOPE', '550 4.2.2 Mailbox temporarily over quota', 'RCPT TO'),
    { kind: 'soft_fail', code: 550, enhancedCode: '4.2.2' },
  ],
  [
    '503 bad sequence without enhanced code is not permanent',
    smtpError('EENVELOPE', '503 Bad sequence of commands', 'DATA'),
    { kind: 'soft_fail', code: 503 },
  ],
  [
    'ECONNREFUSED',
    systemError('ECONNREFUSED', 'ESOCKET', 'connect ECONNREFUSED 127.0.0.1:25'),
    { kind: 'soft_fail' },
  ],
  ['ECONNRESET', systemError('ECONNRESET', 'ESOCKET', 'read ECONNRESET'), { kind: 'soft_fail' }],
  [
    'ETIMEDOUT (greeting)',
    smtpError('ETIMEDOUT', undefined, 'CONN', 'Greeting never received'),
    { kind: 'soft_fail' },
  ],
  [
    'DNS temporary failure',
    systemError('EAI_AGAIN', 'EDNS', 'getaddrinfo EAI_AGAIN smtp.example.com'),
    { kind: 'soft_fail' },
  ],
  [
    'connection closed unexpectedly',
    smtpError('ECONNECTION', undefined, 'CONN', 'Connection closed unexpectedly'),
    { kind: 'soft_fail' },
  ],
  [
    'authentication failure is our setup, never a bounce',
    smtpError('EAUTH', '535 5.7.8 Username and Password not accepted', 'AUTH PLAIN', 'Invalid login'),
    { kind: 'soft_fail', code: 535 },
  ],
  [
    'send deadline (abort)',
    Object.assign(new Error('Message sending aborted'), { code: 'EABORT' }),
    { kind: 'soft_fail' },
  ],
  [
    'over the server SIZE before sending',
    smtpError('EMESSAGE', undefined, 'MAIL FROM', 'Message size larger than allowed 1000'),
    { kind: 'hard_fail', code: 552 },
  ],
  [
    'no recipients (refused locally)',
    smtpError('EENVELOPE', undefined, 'API', 'No recipients defined'),
    { kind: 'hard_fail', code: 550 },
  ],
  ['not an error object', 'boom', { kind: 'soft_fail' }],
  ['null', null, { kind: 'soft_fail' }],
];

describe('classifySendError', () => {
  it.each(table)('%s', (_, err, expected) => {
    const result = classifySendError(err);
    const { retryAfterMs, ...rest } = expected as Expected & { retryAfterMs?: number };
    expect(result).toMatchObject(retryAfterMs === undefined ? rest : expected);
    if ('retryAfterMs' in expected && expected.retryAfterMs === undefined) {
      expect(result).not.toHaveProperty('retryAfterMs');
    }
    if (result.kind !== 'sent') expect(result.detail.length).toBeGreaterThan(0);
  });

  it('keeps the server text and the failing command in the detail', () => {
    const r = classifySendError(smtpError('EENVELOPE', '550 5.1.1 <x@example.com>: user unknown', 'RCPT TO'));
    expect(r.kind === 'hard_fail' && r.detail).toBe('550 5.1.1 <x@example.com>: user unknown (RCPT TO)');
  });
});

describe('parseRetryHint', () => {
  it.each([
    ['try again in 30 seconds', 30_000],
    ['Please try again in 5 minutes', 300_000],
    ['retry after 2 minutes', 120_000],
    ['retry in 1 hour', 3_600_000],
    ['try again in 90s', 90_000],
    ['Try again in 10 min.', 600_000],
    ['wait 45 seconds before retrying', 45_000],
    ['greylisted for 300 seconds', 300_000],
    ['Please try again later', undefined],
    ['Mailbox busy', undefined],
    ['try again in 9999 hours', 24 * 3_600_000],
  ])('%s', (text, ms) => {
    expect(parseRetryHint(text)).toBe(ms);
  });
});

describe('enhancedCode', () => {
  it('reads the code right after the reply code only', () => {
    expect(enhancedCode('550 5.1.1 no such user')).toBe('5.1.1');
    expect(enhancedCode('421-4.7.0 rate limited')).toBe('4.7.0');
    expect(enhancedCode('550 user unknown, see 5.1.1 docs')).toBeUndefined();
  });
});

describe('classifySendInfo', () => {
  it('reports a 250 as sent', () => {
    expect(
      classifySendInfo({
        response: '250 2.0.0 OK 1700000000 queued as ABC',
        accepted: ['a@x.test'],
        rejected: [],
      }),
    ).toEqual({
      kind: 'sent',
      code: 250,
      response: '250 2.0.0 OK 1700000000 queued as ABC',
    });
  });

  it('lists recipients refused while others were accepted', () => {
    const rejectedError = Object.assign(new Error('Recipient command failed'), {
      recipient: 'gone@x.test',
      response: '550 5.1.1 user unknown',
      responseCode: 550,
    });
    const r = classifySendInfo({
      response: '250 OK',
      rejected: ['gone@x.test'],
      rejectedErrors: [rejectedError],
    });
    expect(r).toEqual({
      kind: 'sent',
      code: 250,
      response: '250 OK',
      rejected: [
        {
          address: 'gone@x.test',
          code: 550,
          enhancedCode: '5.1.1',
          permanent: true,
          detail: '550 5.1.1 user unknown',
        },
      ],
    });
  });
});

describe('refusals for a hop without SMTPUTF8', () => {
  it('a UTF-8 recipient: permanent, 553 5.6.7, with a reason that names the address', () => {
    expect(smtpUtf8Refusal('josé@example.com')).toEqual({
      address: 'josé@example.com',
      code: 553,
      enhancedCode: '5.6.7',
      permanent: true,
      detail: 'recipient josé@example.com needs SMTPUTF8, which the receiving server does not offer',
    });
  });

  it('a UTF-8 sender fails the message at MAIL FROM; only UTF-8 recipients fail it at RCPT TO', () => {
    expect(smtpUtf8Failure('josé@example.com', ['ü@example.com'])).toEqual({
      kind: 'hard_fail',
      code: 553,
      enhancedCode: '5.6.7',
      command: 'MAIL FROM',
      detail: 'sender josé@example.com needs SMTPUTF8, which the receiving server does not offer',
    });
    expect(
      smtpUtf8Failure(
        undefined,
        ['a@x.test', 'b@x.test'].map((a) => `ü${a}`),
      ),
    ).toEqual({
      kind: 'hard_fail',
      code: 553,
      enhancedCode: '5.6.7',
      command: 'RCPT TO',
      detail:
        'recipient üa@x.test needs SMTPUTF8, which the receiving server does not offer; ' +
        'recipient üb@x.test needs SMTPUTF8, which the receiving server does not offer',
    });
  });

  it('withRejected appends to a sent result and leaves a failure alone', () => {
    const refused = smtpUtf8Refusal('josé@example.com');
    const earlier = { address: 'gone@x.test', permanent: true, detail: '550' };
    expect(withRejected({ kind: 'sent', code: 250, response: '250 OK' }, [refused])).toEqual({
      kind: 'sent',
      code: 250,
      response: '250 OK',
      rejected: [refused],
    });
    expect(
      withRejected({ kind: 'sent', code: 250, response: '250 OK', rejected: [earlier] }, [refused]),
    ).toMatchObject({ rejected: [earlier, refused] });
    const sent: SendResult = { kind: 'sent', code: 250, response: '250 OK' };
    expect(withRejected(sent, [])).toBe(sent);
    const failed: SendResult = { kind: 'soft_fail', detail: 'timeout' };
    expect(withRejected(failed, [refused])).toBe(failed);
  });
});

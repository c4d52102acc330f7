import { describe, expect, it } from 'vitest';
import type { SendResult } from '../classify.js';
import { deferralReason, feedbackOf, isTlsFailure, tlsResultType, triesNextHost } from './outcome.js';

const sent: SendResult = { kind: 'sent', code: 250, response: '250 OK' };
const refused: SendResult = {
  kind: 'soft_fail',
  command: 'CONN',
  detail: 'ESOCKET/ECONNREFUSED: connect ECONNREFUSED 127.0.0.2:25 (CONN)',
};
const greeting421: SendResult = {
  kind: 'soft_fail',
  code: 421,
  enhancedCode: '4.3.2',
  command: 'CONN',
  detail: '421 4.3.2 Service not available (CONN)',
};
const rate471: SendResult = {
  kind: 'soft_fail',
  code: 450,
  enhancedCode: '4.7.1',
  command: 'RCPT TO',
  detail: '450 4.7.1 Too many messages, slow down (RCPT TO)',
};
const greylisted: SendResult = {
  kind: 'soft_fail',
  code: 451,
  enhancedCode: '4.3.0',
  command: 'RCPT TO',
  detail: '451 4.3.0 greylisted (RCPT TO)',
};
const noStartTls: SendResult = {
  kind: 'soft_fail',
  code: 500,
  command: 'STARTTLS',
  detail: 'ETLS: Error upgrading connection with STARTTLS: 500 Error: command not recognized (STARTTLS)',
};
const greeting554: SendResult = {
  kind: 'hard_fail',
  code: 554,
  command: 'CONN',
  detail: '554 no service (CONN)',
};
const unknownUser: SendResult = {
  kind: 'hard_fail',
  code: 550,
  command: 'RCPT TO',
  detail: '550 5.1.1 (RCPT TO)',
};
const socketBroke: SendResult = { kind: 'soft_fail', detail: 'ECONNRESET: socket hang up' };

describe('direct delivery outcome rules', () => {
  it('reads 421, 4.7.x and refused connections as "slow down"', () => {
    expect(
      [sent, refused, greeting421, rate471, greylisted, noStartTls, unknownUser].map(feedbackOf),
    ).toEqual(['success', 'throttle', 'throttle', 'throttle', 'neutral', 'neutral', 'neutral']);
  });

  it('goes on to the next MX host only when the session failed before MAIL FROM', () => {
    expect(triesNextHost(refused)).toBe(true);
    expect(triesNextHost(greeting421)).toBe(true);
    expect(triesNextHost(noStartTls)).toBe(true);
    expect(triesNextHost(greeting554)).toBe(true);
    expect(triesNextHost(socketBroke)).toBe(true);
    expect(triesNextHost(sent)).toBe(false);
    expect(triesNextHost(rate471)).toBe(false);
    expect(triesNextHost(greylisted)).toBe(false);
    expect(triesNextHost(unknownUser)).toBe(false);
  });

  it('labels deferrals with a bounded reason', () => {
    expect(isTlsFailure(noStartTls)).toBe(true);
    expect(isTlsFailure(greeting421)).toBe(false);
    const handshake: SendResult = {
      kind: 'soft_fail',
      command: 'CONN',
      detail: 'ESOCKET/ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: tlsv1 alert protocol version (CONN)',
    };
    expect(isTlsFailure(handshake)).toBe(true);
    expect(deferralReason(handshake, true)).toBe('tls_required');
    expect(deferralReason(handshake, false)).toBe('connection');
    expect(isTlsFailure(refused)).toBe(false);
    expect(deferralReason(noStartTls, true)).toBe('tls_required');
    expect(deferralReason(noStartTls, false)).toBe('connection');
    expect(deferralReason(greeting421, false)).toBe('throttled');
    expect(deferralReason(refused, false)).toBe('connection');
    expect(deferralReason(socketBroke, false)).toBe('connection');
    expect(deferralReason(greylisted, false)).toBe('temporary');
  });
});

describe('tlsResultType (RFC 8460 section 4.3.2)', () => {
  const failed = (detail: string): SendResult => ({ kind: 'soft_fail', command: 'CONN', detail });

  it("names a certificate failure by node's verify code, and counts it as a TLS failure", () => {
    const cases: [string, string][] = [
      ['ESOCKET/DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate (CONN)', 'certificate-not-trusted'],
      [
        'ESOCKET/UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate (CONN)',
        'certificate-not-trusted',
      ],
      ['ESOCKET/CERT_HAS_EXPIRED: certificate has expired (CONN)', 'certificate-expired'],
      [
        "ESOCKET/ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames (CONN)",
        'certificate-host-mismatch',
      ],
    ];
    for (const [detail, type] of cases) {
      expect(tlsResultType(failed(detail))).toBe(type);
      expect(isTlsFailure(failed(detail))).toBe(true);
    }
  });

  it('tells a server without STARTTLS from any other failure', () => {
    expect(
      tlsResultType({
        kind: 'soft_fail',
        command: 'STARTTLS',
        detail: 'ETLS: STARTTLS is not supported (STARTTLS)',
      }),
    ).toBe('starttls-not-supported');
    expect(tlsResultType(failed('ESOCKET/ERR_SSL_WRONG_VERSION_NUMBER: wrong version number (CONN)'))).toBe(
      'validation-failure',
    );
  });
});

/**
 * What one attempt at one MX host means for direct delivery. Pure. The classification of the
 * reply itself (sent / soft / hard) is classify.ts's, unchanged: this only reads its result.
 */
import type { Feedback } from './aimd.js';
import type { TlsRptResultType } from '@petrel/core';
import type { SendResult } from '../classify.js';

/** Why an attempt at a destination did not deliver now; a bounded set (a metrics label). */
export type DeferralReason =
  /** 421 or 4.7.x: the server asks us to slow down. */
  | 'throttled'
  /** Refused, timed out or cut before the transaction: the host was not reachable. */
  | 'connection'
  /** The email requires TLS and the host did not complete STARTTLS. */
  | 'tls_required'
  /** No slot under the destination's concurrency limit within DIRECT_SLOT_WAIT_MS. */
  | 'slot_timeout'
  /** Any other temporary reply (4xx at MAIL, RCPT, DATA). */
  | 'temporary'
  /** An MX or address lookup failed temporarily (SERVFAIL, timeout); destination `(dns)`. */
  | 'dns'
  /**
   * MTA-STS enforce: the MX's certificate did not validate; destination `(mta-sts)`: no MX of
   * the domain is in its policy.
   */
  | 'mta_sts'
  /** Every address of the email's sending pool reached its warm-up cap for the provider today. */
  | 'warmup';

export const DEFERRAL_REASONS: readonly DeferralReason[] = [
  'throttled',
  'connection',
  'tls_required',
  'slot_timeout',
  'temporary',
  'dns',
  'mta_sts',
  'warmup',
];

/** The steps nodemailer names before the first transaction command: failing there is the host's. */
const SESSION_SETUP: ReadonlySet<string> = new Set(['CONN', 'EHLO', 'HELO', 'LHLO', 'STARTTLS']);

function command(result: SendResult): string | undefined {
  return result.kind === 'sent' ? undefined : result.command;
}

/** A refused connection: the host (or a firewall in front of it) limits connections. */
const REFUSED = /\bECONNREFUSED\b/;

/** 421 (RFC 5321 section 4.2.2: closing the channel) or 4.7.x (RFC 3463 section 3.8: policy). */
function isThrottleReply(result: SendResult): boolean {
  if (result.kind === 'sent') return false;
  return result.code === 421 || result.enhancedCode?.startsWith('4.7.') === true;
}

/** What the attempt tells the destination's concurrency limit: a refused connection is a "slow down" too. */
export function feedbackOf(result: SendResult): Feedback {
  if (result.kind === 'sent') return 'success';
  return isThrottleReply(result) || REFUSED.test(result.detail) ? 'throttle' : 'neutral';
}

/**
 * Whether the next MX host may be tried: the session never reached MAIL FROM (refused, timed
 * out, 4xx/5xx greeting, EHLO or STARTTLS failed), so nothing about this message was refused —
 * RFC 5321 section 5.1 has the client go on down the list. A reply to MAIL, RCPT or DATA is
 * the destination's answer for this message and ends the delivery attempt.
 */
export function triesNextHost(result: SendResult): boolean {
  if (result.kind === 'sent') return false;
  const cmd = command(result);
  if (cmd !== undefined) return SESSION_SETUP.has(cmd);
  // no command and no reply: a socket that broke before any step was named
  return result.kind === 'soft_fail' && result.code === undefined;
}

/**
 * The failure is the TLS upgrade's: the STARTTLS command refused (ETLS; classify.ts starts a
 * setup error's detail with its code), the handshake itself failed (node's ERR_SSL_… /
 * ERR_TLS_… codes, which nodemailer reports as a socket error), or — only when certificates are
 * checked (MTA-STS) — the certificate did not validate (OpenSSL's X509 verify codes, which node
 * passes on as the error code: DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED…).
 */
const TLS_ERROR =
  /^ETLS\b|\bERR_(?:SSL|TLS)_|\b(?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_UNTRUSTED|CERT_REJECTED|CERT_SIGNATURE_FAILURE)\b/;

export function isTlsFailure(result: SendResult): boolean {
  return result.kind !== 'sent' && (command(result) === 'STARTTLS' || TLS_ERROR.test(result.detail));
}

/** The metrics label of a soft failure at a destination. */
export function deferralReason(result: SendResult, tlsEnforced: boolean): DeferralReason {
  if (tlsEnforced && isTlsFailure(result)) return 'tls_required';
  if (isThrottleReply(result)) return 'throttled';
  return triesNextHost(result) ? 'connection' : 'temporary';
}

/**
 * The RFC 8460 section 4.3.2 result type of a failed TLS setup with an MX, from node's TLS error
 * codes and messages (nodemailer passes them on in the detail): a name mismatch, an expired
 * certificate, an untrusted chain, STARTTLS not offered — anything else a validation failure.
 */
export function tlsResultType(result: SendResult): TlsRptResultType {
  const detail = result.kind === 'sent' ? '' : result.detail;
  if (/ALTNAME|does not match certificate|Hostname\/IP does not match/i.test(detail))
    return 'certificate-host-mismatch';
  if (/CERT_HAS_EXPIRED|certificate has expired|CERT_NOT_YET_VALID/i.test(detail))
    return 'certificate-expired';
  if (
    /SELF_SIGNED|self[- ]signed|UNABLE_TO_VERIFY|unable to (?:verify|get)|CERT_UNTRUSTED|CERT_REJECTED/i.test(
      detail,
    )
  )
    return 'certificate-not-trusted';
  if (/STARTTLS/i.test(detail) && /not supported|not offered|does not support|EREQUIRETLS|ETLS/i.test(detail))
    return 'starttls-not-supported';
  return 'validation-failure';
}

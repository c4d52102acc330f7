/**
 * Test addresses that never leave the machine. Resend documents `delivered@`, `bounced@`,
 * `complained@` and `suppressed@resend.dev`, each taking a `+label`
 * (https://resend.com/docs/dashboard/emails/send-test-emails); code written against those docs
 * sends to them in its tests. Petrel recognises them, and the same local parts on the operator's
 * own SIMULATOR_DOMAIN, plus `delayed@` and `tempfail@` to walk the retry ladder. The `simulate`
 * delivery stage answers for them instead of an SMTP server, so they move through the states,
 * events and suppressions a real reply would give.
 */
import type { SendResult } from './ports.js';
import { bareAddress } from '../kernel/mailbox.js';

/** Resend's own test domain. */
export const RESEND_TEST_DOMAIN = 'resend.dev';

export const SIMULATED_KINDS = [
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'delayed',
  'tempfail',
] as const;
export type SimulatedKind = (typeof SIMULATED_KINDS)[number];

const KINDS: ReadonlySet<string> = new Set(SIMULATED_KINDS);

/** A domain as compared: lower case, without the root's trailing dot. */
const domainKey = (domain: string): string => domain.trim().toLowerCase().replace(/\.$/, '');

/**
 * What a recipient simulates, or null for a real address. Only the exact domain counts
 * (`delivered@resend.dev.evil.test` is real mail); local parts compare without case, and a
 * `+label` (RFC 5233 subaddress) is ignored, as Resend does.
 */
export function simulatedKind(address: string, simulatorDomain?: string): SimulatedKind | null {
  const bare = bareAddress(address);
  const at = bare.lastIndexOf('@');
  if (at <= 0) return null;
  const domain = domainKey(bare.slice(at + 1));
  const domains = [RESEND_TEST_DOMAIN, ...(simulatorDomain ? [domainKey(simulatorDomain)] : [])];
  if (!domains.includes(domain)) return null;
  const local = bare.slice(0, at).toLowerCase();
  const plus = local.indexOf('+');
  const base = plus === -1 ? local : local.slice(0, plus);
  return KINDS.has(base) ? (base as SimulatedKind) : null;
}

/** The reply a permanent failure of a mailbox that does not exist gets (RFC 3463 X.1.1). */
export const SIMULATED_BOUNCE = '550 5.1.1 The email account that you tried to reach does not exist';
/** A temporary refusal (RFC 3463 4.2.1: mailbox busy / greylisted), asking to retry later. */
const SIMULATED_TEMPFAIL = '451 4.2.1 The user you are trying to contact is receiving mail too quickly';
const SIMULATED_ACCEPT = '250 2.0.0 OK: accepted by the Petrel simulator (no SMTP connection made)';

/**
 * The SMTP reply a simulated recipient gets on attempt `attemptsMade` (0 = the first):
 * `delayed` is refused once and accepted on the first retry; `tempfail` is refused on every
 * attempt, so it ends as a Temporary bounce when the ladder is spent. `suppressed` has none: it
 * is left out before any attempt, as a suppressed address is.
 */
export function simulatedReply(kind: Exclude<SimulatedKind, 'suppressed'>, attemptsMade: number): SendResult {
  const accepted: SendResult = { kind: 'sent', code: 250, response: SIMULATED_ACCEPT };
  switch (kind) {
    case 'delivered':
    case 'complained':
      return accepted;
    case 'bounced':
      return { kind: 'hard_fail', code: 550, enhancedCode: '5.1.1', detail: SIMULATED_BOUNCE };
    case 'delayed':
      return attemptsMade === 0 ? tempfail() : accepted;
    case 'tempfail':
      return tempfail();
  }
}

const tempfail = (): SendResult => ({
  kind: 'soft_fail',
  code: 451,
  enhancedCode: '4.2.1',
  detail: SIMULATED_TEMPFAIL,
});

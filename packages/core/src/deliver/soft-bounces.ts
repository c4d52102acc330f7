/**
 * Soft-bounce suppression: an address whose mailbox refuses email after email with a temporary
 * reply (a full mailbox, a mailbox disabled for good that its provider still answers with 4xx)
 * is suppressed like a hard-bounced one, with origin `bounce` — Resend's suppression origins are
 * `bounce`, `complaint` and `manual`, and a soft bounce that kept coming is a bounce. Mailbox
 * providers count repeated sends to such addresses against the sender: Google's sender
 * guidelines (https://support.google.com/a/answer/81126) ask senders to remove addresses that
 * keep bouncing, and a 4xx that never turns into a 2xx is how a dead mailbox often answers
 * (RFC 5321 section 4.2.5 leaves it to the client how long to keep trying).
 *
 * What counts is one final soft bounce per email: the email's Temporary bounce once the retry
 * ladder is spent, or a recipient refused with a 4xx while the message went to the others (it is
 * not sent again for that one recipient, so the 4xx is final). N such emails in a row spread over
 * at least M days suppress the address; one day of a provider's trouble never does. An email
 * delivered to the address ends its streak, in the same write that records the delivery. The
 * counting is the store's (one atomic script per address); the decision is {@link softBounceSuppresses}.
 */

import type { SendResult } from './ports.js';
import { mailboxKey } from '../kernel/mailbox.js';

export interface SoftBounceSettings {
  /** Emails in a row that must soft-bounce; 0 switches the rule off. */
  emails: number;
  /** Days the streak must span, from its first soft bounce to the latest (0: any span). */
  days: number;
}

/** The documented defaults (README, SOFT_BOUNCE_SUPPRESS_*). */
export const DEFAULT_SOFT_BOUNCE_SETTINGS: SoftBounceSettings = { emails: 3, days: 2 };

const DAY_MS = 86_400_000;

/**
 * How long a streak outlives its latest soft bounce: emails months apart are not "in a row" in
 * any sense that says the mailbox is dead, so an address quiet this long starts afresh. At least
 * twice the span the rule needs, so a configured span never outlasts its own streak.
 */
export function softBounceStreakTtlMs(settings: SoftBounceSettings): number {
  return Math.max(30 * DAY_MS, 2 * settings.days * DAY_MS);
}

/** An address's run of soft-bounced emails, as the store keeps it. */
export interface SoftBounceStreak {
  /** Emails in the run (each counted once, however many attempts it took). */
  emails: number;
  /** When the run's first soft bounce was recorded (epoch ms). */
  firstMs: number;
}

/** Whether the streak, as it stands at `nowMs` (its latest soft bounce), suppresses the address. */
export function softBounceSuppresses(
  streak: SoftBounceStreak,
  settings: SoftBounceSettings,
  nowMs: number,
): boolean {
  if (settings.emails <= 0) return false;
  return streak.emails >= settings.emails && nowMs - streak.firstMs >= settings.days * DAY_MS;
}

/** What one recorded attempt says about its recipients' streaks. */
export interface SoftBounceFacts {
  /** Final soft bounces: each extends its address's streak. */
  softBounced: string[];
  /** Recipients the message reached: each ends its address's streak. */
  delivered: string[];
}

/**
 * Reads the recorded outcome of an attempt: a Temporary bounce (the ladder is spent) is a final
 * soft bounce of every recipient; a delivered email reached every recipient except those refused,
 * and a recipient refused with a 4xx is not retried (the message went to the others), so that
 * refusal is final too. A delayed email (retries left) and a Permanent bounce (the hard-bounce
 * rule's) say nothing here.
 */
export function softBounceFacts(
  outcome: { kind: string; bounce?: 'Permanent' | 'Temporary' },
  result: SendResult,
  recipients: readonly string[],
): SoftBounceFacts {
  if (outcome.kind === 'bounced' && outcome.bounce === 'Temporary') {
    return { softBounced: [...recipients], delivered: [] };
  }
  if (outcome.kind !== 'delivered' || result.kind !== 'sent') return { softBounced: [], delivered: [] };
  // the common case, every recipient took it: no refusal to look up
  if (!result.rejected?.length) return { softBounced: [], delivered: [...recipients] };
  const refused = new Map(result.rejected.map((r) => [mailboxKey(r.address), r]));
  const softBounced: string[] = [];
  const delivered: string[] = [];
  for (const address of recipients) {
    const refusal = refused.get(mailboxKey(address));
    if (refusal === undefined) delivered.push(address);
    // a deferral (no server asked: a warm-up cap) says nothing about the mailbox
    else if (!refusal.permanent && !refusal.deferred) softBounced.push(address);
  }
  return { softBounced, delivered };
}

/**
 * The addresses whose streak the attempt's outcome ends (the recipients it reached), none when
 * the rule is off. Record-and-publish writes their end together with the outcome's events
 * (`RecordedWithEvents`): a delivery, the common outcome, then costs no write of its own.
 */
export function softBounceStreaksEnded(
  settings: SoftBounceSettings | undefined,
  outcome: { kind: string; bounce?: 'Permanent' | 'Temporary' },
  result: SendResult,
  recipients: readonly string[],
): string[] {
  if (!settings || settings.emails <= 0 || outcome.kind !== 'delivered') return [];
  return softBounceFacts(outcome, result, recipients).delivered;
}

/** Where the streaks are kept (the store: one key per address, in the team's slot). */
export interface SoftBounceStreaks {
  /**
   * Counts `emailId` as the address's latest soft-bounced email (an email already counted for it
   * is not counted again: a re-run changes nothing) and returns the streak. The streak is
   * forgotten `ttlMs` after this call.
   */
  record(
    teamId: string,
    address: string,
    emailId: string,
    nowMs: number,
    ttlMs: number,
  ): Promise<SoftBounceStreak>;
  /**
   * Ends the streaks of these addresses (suppressed now; a delivery's end rides with its
   * recorded events instead, {@link softBounceStreaksEnded}).
   */
  reset(teamId: string, addresses: readonly string[]): Promise<void>;
}

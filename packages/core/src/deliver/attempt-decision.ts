/**
 * What an SMTP attempt's result means for the email, as a pure decision the record-and-publish
 * stage carries out:
 *
 * | result             | retries left | status before    | case              | events (→ status)                           |
 * |--------------------|--------------|------------------|-------------------|---------------------------------------------|
 * | sent               | any          | any              | delivered         | email.sent, email.delivered (→ delivered)   |
 * | sent, some refused | any          | any              | delivered-in-part | the same, email.delivered with `recipients` |
 * | hard_fail          | any          | any              | bounced-permanent | email.bounced Permanent (→ bounced)         |
 * | soft_fail          | none         | any              | bounced-temporary | email.bounced Temporary (→ bounced)         |
 * | soft_fail          | some         | not delayed yet  | delay-first-time  | email.delivery_delayed (→ delivery_delayed) |
 * | soft_fail          | some         | delivery_delayed | delay-again       | none (only the attempt count)               |
 * | soft_fail deferred | any          | (as the two above) | delay-*         | as the two above, no attempt counted        |
 *
 * A soft bounce that never got through is reported as Resend does: `email.bounced` with bounce
 * type `Temporary` (subType `RetriesExhausted`). One `email.delivery_delayed` per email, however
 * many retries follow it. A deferral (`deferred`: Petrel held the message back before asking any
 * server, e.g. at a sending pool's warm-up cap) is not an attempt: it never ends the ladder, and
 * the job waits without spending one. A server may accept the message for some recipients and refuse others
 * (RFC 5321 section 3.3): the email is delivered, and its `email.delivered` data lists every
 * recipient with what became of it ({@link recipientOutcomes}). When every recipient is refused
 * the mailer reports a hard or soft fail, decided as any other.
 */
import type { EmailEventType, EmailStatus } from '@petrel/contracts';
import type { DeliverOutcome } from './outcome.js';
import type { SendResult } from './ports.js';
import {
  RECIPIENTS_KEY,
  droppedEvents,
  recipientOutcomes,
  smtpDiagnostic,
  type Bounce,
  type RecipientOutcome,
} from './recipient-outcomes.js';

export interface AttemptFacts {
  result: SendResult;
  /** The envelope recipients of this attempt, as the email holds them. */
  recipients: readonly string[];
  /** Failed attempts before this one (BullMQ's `attemptsMade` while the attempt runs). */
  attemptsMade: number;
  /** Length of the retry ladder. */
  retries: number;
  /** The email's status when the attempt began. */
  status: EmailStatus;
  /**
   * Recipients decide-recipients left out (suppressed, opted out…): listed with the others in
   * the terminal event's `recipients`, a suppressed one also as `email.suppressed`.
   */
  dropped?: readonly RecipientOutcome[];
}

export type AttemptCase =
  | 'delivered'
  | 'delivered-in-part'
  | 'delay-first-time'
  | 'delay-again'
  | 'bounced-temporary'
  | 'bounced-permanent';

/** An event to record: its type, the status it moves the email to, and its own data. */
export interface DecidedEvent {
  type: EmailEventType;
  status: EmailStatus;
  data?: Record<string, unknown>;
}

export interface AttemptDecision {
  case: AttemptCase;
  /** In order; empty when only the attempt count changes. */
  events: DecidedEvent[];
  outcome: Extract<DeliverOutcome, { kind: 'delivered' | 'delayed' | 'bounced' }>;
}

export function decideAttempt({
  result,
  recipients,
  attemptsMade,
  retries,
  status,
  dropped = [],
}: AttemptFacts): AttemptDecision {
  /** The terminal events, after the `email.suppressed` of each suppressed recipient. */
  const ending = (status: EmailStatus, events: DecidedEvent[]): DecidedEvent[] => [
    ...droppedEvents(dropped).map((e) => ({ ...e, status })),
    ...events,
  ];
  /** Every recipient bounced alike, with those left out, when any was left out. */
  const bouncedData = (bounce: Bounce): Record<string, unknown> =>
    dropped.length === 0
      ? { bounce }
      : {
          bounce,
          [RECIPIENTS_KEY]: [
            ...recipients.map((email): RecipientOutcome => ({ email, status: 'bounced', bounce })),
            ...dropped,
          ],
        };
  if (result.kind === 'sent') {
    const refused = result.rejected ?? [];
    const delivered: Record<string, unknown> = { smtp_response: result.response };
    if (refused.length > 0 || dropped.length > 0) {
      delivered[RECIPIENTS_KEY] = [...recipientOutcomes(recipients, refused), ...dropped];
    }
    return {
      case: refused.length > 0 ? 'delivered-in-part' : 'delivered',
      events: ending('delivered', [
        { type: 'email.sent', status: 'sent' },
        { type: 'email.delivered', status: 'delivered', data: delivered },
      ]),
      outcome: { kind: 'delivered' },
    };
  }
  if (result.kind === 'hard_fail') {
    const bounce: Bounce = {
      type: 'Permanent',
      subType: 'General',
      message: result.detail,
      diagnosticCode: [smtpDiagnostic(result.code, result.enhancedCode, result.detail)],
    };
    return {
      case: 'bounced-permanent',
      events: ending('bounced', [{ type: 'email.bounced', status: 'bounced', data: bouncedData(bounce) }]),
      outcome: { kind: 'bounced', bounce: 'Permanent', code: result.code, detail: result.detail },
    };
  }
  if (!result.deferred && attemptsMade >= retries) {
    const bounce: Bounce = {
      type: 'Temporary',
      subType: 'RetriesExhausted',
      message: `Delivery retries exhausted: ${result.detail}`,
      diagnosticCode: result.code ? [smtpDiagnostic(result.code, result.enhancedCode, result.detail)] : [],
    };
    return {
      case: 'bounced-temporary',
      events: ending('bounced', [{ type: 'email.bounced', status: 'bounced', data: bouncedData(bounce) }]),
      outcome: { kind: 'bounced', bounce: 'Temporary', code: result.code, detail: result.detail },
    };
  }
  const outcome: Extract<DeliverOutcome, { kind: 'delayed' }> = {
    kind: 'delayed',
    detail: result.detail,
    retryAfterMs: result.retryAfterMs,
    ...(result.deferred ? { deferred: true as const } : {}),
  };
  if (status === 'delivery_delayed') return { case: 'delay-again', events: [], outcome };
  const delay = { message: result.detail, code: result.code ?? null };
  return {
    case: 'delay-first-time',
    events: [{ type: 'email.delivery_delayed', status: 'delivery_delayed', data: { delay } }],
    outcome,
  };
}

/**
 * How one delivery attempt ended. The worker maps it to the job's fate (complete, retry later,
 * never retry); the use-case has already recorded the matching events.
 */
import type { EmailStatus } from '@petrel/contracts';

/** The names of the delivery stages, as they appear in outcomes and logs. */
export type DeliverStageName =
  | 'resolve-content'
  | 'decide-recipients'
  | 'render'
  | 'track'
  | 'decorate'
  | 'build-mime'
  | 'sign'
  | 'simulate'
  | 'send'
  | 'record-and-publish'
  | 'soft-bounces';

export type DeliverOutcome =
  /** The record expired or was deleted: nothing to send. */
  | { kind: 'missing' }
  /** Canceled, already delivered or terminal: a re-run after a crash must not send twice. */
  | { kind: 'skipped'; status: EmailStatus }
  /** Petrel itself could not send it (`email.failed`); `stage` says where. */
  | { kind: 'failed'; stage: DeliverStageName; reason: string }
  | { kind: 'delivered' }
  /**
   * A paused broadcast's email (broadcasts/protection.ts): not sent, not failed, no attempt
   * counted; its job waits until `untilMs` and looks at the broadcast again (resumed: sent;
   * canceled: canceled; still paused: held again).
   */
  | { kind: 'held'; untilMs: number }
  /**
   * A temporary failure with retries left: try again later. `deferred`: no server was asked
   * (a sending pool's warm-up cap), so the job waits `retryAfterMs` without spending an attempt.
   */
  | { kind: 'delayed'; detail: string; retryAfterMs?: number; deferred?: true }
  /** Permanent (5xx), or Temporary once the retries are spent. */
  | { kind: 'bounced'; bounce: 'Permanent' | 'Temporary'; code?: number; detail: string };

/**
 * Broadcasts as Resend names them (https://resend.com/docs/api-reference/broadcasts): one message
 * to every contact of a segment, personalised per contact.
 */

/**
 * `draft` (editable, deletable) → `scheduled` (a delayed fan-out job; deletable, cancelable) →
 * `queued` (fan-out running: emails being created and queued) → `sent` (fan-out finished; the
 * emails deliver on the broadcast lane). `canceled` from scheduled, queued or paused: what was not
 * sent yet never is. `paused` (a Petrel extension): the team's protection thresholds were exceeded
 * while it was queued or sending (core broadcasts/protection.ts); its emails not sent yet are held
 * until a person resumes it (→ queued) or cancels it.
 */
export const BROADCAST_STATUSES = ['draft', 'scheduled', 'queued', 'sent', 'canceled', 'paused'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

/** Progress of a broadcast's fan-out and delivery. */
export interface BroadcastCounts {
  /** Contacts of the segment the fan-out went through. */
  total: number;
  /** Emails created and queued. */
  enqueued: number;
  /** Contacts left out at fan-out (unsubscribed, suppressed, not subscribed to the topic). */
  skipped: number;
}

export interface BroadcastRecord {
  id: string;
  name: string | null;
  segment_id: string;
  from: string;
  subject: string;
  reply_to: string[] | null;
  html: string | null;
  text: string | null;
  preview_text: string | null;
  topic_id: string | null;
  status: BroadcastStatus;
  created_at: string;
  /** ISO 8601: when it is due (scheduled) or was due. */
  scheduled_at: string | null;
  /** ISO 8601: when the fan-out finished. */
  sent_at: string | null;
  /**
   * Petrel extension, set when the protection rule paused the broadcast: why, in a sentence
   * naming the rate, its value, the sample and the threshold. Kept after a resume (it says why it
   * was paused); absent on a broadcast never paused.
   */
  paused_reason?: string;
  counts: BroadcastCounts;
}

/** Email event kinds, as Resend names them in its webhooks. */
export const EMAIL_EVENT_TYPES = [
  'email.sent',
  'email.scheduled',
  'email.delivered',
  'email.delivery_delayed',
  'email.complained',
  'email.bounced',
  'email.opened',
  'email.clicked',
  'email.received',
  'email.failed',
  'email.suppressed',
] as const;
export type EmailEventType = (typeof EMAIL_EVENT_TYPES)[number];

/**
 * `last_event` values of an email, as Resend reports them. The order is the order of progress:
 * a status only moves forward (see `statusRank`).
 */
export const EMAIL_STATUSES = [
  'scheduled',
  'queued',
  'delivery_delayed',
  'sent',
  'delivered',
  'opened',
  'clicked',
  'complained',
  'bounced',
  'failed',
  'suppressed',
  'canceled',
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** Terminal statuses: nothing after them changes what happened to the message. */
export const TERMINAL_STATUSES: ReadonlySet<EmailStatus> = new Set([
  'bounced',
  'failed',
  'suppressed',
  'canceled',
]);

/** Timeline-only kinds: recorded on the email, never sent as webhooks. */
export type TimelineOnlyEventType = 'email.queued' | 'email.canceled' | 'email.rescheduled';

/** The envelope of an internal (and webhook) event. */
export interface EmailEvent {
  /** Stable event id (UUIDv7); the webhook message id derives from it. */
  id: string;
  type: EmailEventType | TimelineOnlyEventType;
  created_at: string;
  teamId: string;
  data: Record<string, unknown>;
}

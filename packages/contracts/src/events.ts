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

/**
 * Timeline-only kinds: recorded on the email, never sent as webhooks (`email.unsubscribed`: the
 * recipient used the email's unsubscribe link; Resend's webhook list has no such type).
 */
export type TimelineOnlyEventType =
  'email.queued' | 'email.canceled' | 'email.rescheduled' | 'email.unsubscribed';

/** The envelope of an internal (and webhook) event. */
export interface EmailEvent {
  /** Stable event id (UUIDv7); the webhook message id derives from it. */
  id: string;
  type: EmailEventType | TimelineOnlyEventType;
  created_at: string;
  teamId: string;
  data: Record<string, unknown>;
}

/** Non-email event kinds Petrel publishes for the webhook dispatcher (Resend's names). */
export const CONTACT_EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.topics.updated',
] as const;
export type ContactEventType = (typeof CONTACT_EVENT_TYPES)[number];

export const SUPPRESSION_EVENT_TYPES = ['suppression.added', 'suppression.removed'] as const;
export const TOPIC_EVENT_TYPES = ['topic.created', 'topic.updated', 'topic.deleted'] as const;
export type SuppressionEventType = (typeof SUPPRESSION_EVENT_TYPES)[number];
export type TopicEventType = (typeof TOPIC_EVENT_TYPES)[number];
export const DOMAIN_EVENT_TYPES = ['domain.created', 'domain.updated', 'domain.deleted'] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];
/** The inbox events (the SDK's `Inbox*Event` webhook types). */
export const INBOX_EVENT_TYPES = [
  'inbox.created',
  'inbox.updated',
  'inbox.deleted',
  'inbox.thread.created',
  'inbox.thread.folder.updated',
  'inbox.thread.assigned',
  'inbox.thread.unassigned',
  'inbox.thread.labels.updated',
  'inbox.email.received',
  'inbox.email.sent',
  'inbox.draft.created',
  'inbox.draft.updated',
  'inbox.draft.sent',
  'inbox.draft.deleted',
] as const;
export type InboxEventType = (typeof INBOX_EVENT_TYPES)[number];
/**
 * Petrel's broadcast events: `broadcast.paused` when the protection rule pauses one (data:
 * `broadcast_id`, `paused_reason`; docs/operations.md, "Broadcast protection").
 */
export const BROADCAST_EVENT_TYPES = ['broadcast.paused'] as const;
export type BroadcastEventType = (typeof BROADCAST_EVENT_TYPES)[number];

/**
 * Any event on a team's events stream: the same envelope as {@link EmailEvent}, for the
 * resources that are not emails. The dispatcher reads `type` and sends `data` as it is.
 */
export interface TeamEvent {
  id: string;
  type:
    | ContactEventType
    | SuppressionEventType
    | TopicEventType
    | DomainEventType
    | InboxEventType
    | BroadcastEventType;
  created_at: string;
  teamId: string;
  data: Record<string, unknown>;
}

/**
 * Every event type a webhook may subscribe to: Resend's list (the SDK's `WebhookEvent` union).
 * A type Petrel does not produce yet (domain.*, inbox.*) is accepted, as Resend accepts it, and
 * simply never fires; anything else is refused at POST/PATCH /webhooks.
 */
export const WEBHOOK_EVENT_TYPES = [
  ...EMAIL_EVENT_TYPES,
  ...CONTACT_EVENT_TYPES,
  ...DOMAIN_EVENT_TYPES,
  ...SUPPRESSION_EVENT_TYPES,
  ...TOPIC_EVENT_TYPES,
  ...INBOX_EVENT_TYPES,
  ...BROADCAST_EVENT_TYPES,
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Statuses of an event in a webhook's event log (Resend's `WebhookEventLogStatus`). */
export const WEBHOOK_EVENT_STATUSES = ['success', 'pending', 'failed', 'attempting'] as const;
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number];

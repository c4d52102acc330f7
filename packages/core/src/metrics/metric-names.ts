/**
 * The names of GET /emails/metrics (the SDK's `EmailMetric`, `EmailMetricsDimension` and
 * `EmailMetricsGranularity`, resend 6.38) and how each email event counts towards them: a leaf
 * module, so the store can build its counting script from the same lists.
 */
import type { EmailStatus } from '@petrel/contracts';

/** Metrics kept as counters (the store increments them as events are recorded). */
export const COUNTED_METRICS = [
  'received',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'bounced_permanent',
  'bounced_transient',
  'bounced_undetermined',
  'complained',
  'opened',
  'unique_opened',
  'clicked',
  'unique_clicked',
  'unsubscribed',
  'suppressed',
  'failed',
] as const;
export type CountedMetric = (typeof COUNTED_METRICS)[number];

/**
 * Metrics computed from two counters of the same row: numerator / denominator as a fraction
 * between 0 and 1 (4 decimals), 0 when the denominator is 0. Opens and clicks count each email
 * once (`unique_*`), as a rate of people is meant. Delivery and bounce rates are over the emails
 * accepted (`received`), not `sent`: a server that refuses the message during the SMTP
 * transaction (a 5xx bounce) means it was never sent, and a rate over `sent` could pass 1.
 */
export const RATE_METRICS = {
  delivery_rate: ['delivered', 'received'],
  open_rate: ['unique_opened', 'delivered'],
  click_rate: ['unique_clicked', 'delivered'],
  bounce_rate: ['bounced', 'received'],
  complaint_rate: ['complained', 'delivered'],
  unsubscribe_rate: ['unsubscribed', 'delivered'],
} as const satisfies Record<string, readonly [CountedMetric, CountedMetric]>;
export type RateMetric = keyof typeof RATE_METRICS;

export type EmailMetric = CountedMetric | RateMetric;
export const EMAIL_METRICS: readonly EmailMetric[] = [
  ...COUNTED_METRICS,
  ...(Object.keys(RATE_METRICS) as RateMetric[]),
];

export const METRICS_DIMENSIONS = ['period', 'domain', 'email', 'broadcast'] as const;
export type MetricsDimension = (typeof METRICS_DIMENSIONS)[number];

export const METRICS_GRANULARITIES = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export type MetricsGranularity = (typeof METRICS_GRANULARITIES)[number];

/** Bounce kinds as the SDK names them (`BroadcastRecipientBounceType`). */
export const BOUNCE_KINDS = ['permanent', 'transient', 'undetermined'] as const;
export type BounceKind = (typeof BOUNCE_KINDS)[number];

/**
 * The kind of a bounce event's `data.bounce.type`: Resend's webhook says `Permanent` for a hard
 * bounce and `Transient` (Petrel: `Temporary`, RFC 3463 4.x.x codes and exhausted retries) for
 * a soft one; anything else could not be classified.
 */
export function bounceKind(data: Record<string, unknown>): BounceKind {
  const bounce = data.bounce as { type?: unknown } | undefined;
  const type = typeof bounce?.type === 'string' ? bounce.type.toLowerCase() : '';
  if (type === 'permanent') return 'permanent';
  if (type === 'transient' || type === 'temporary') return 'transient';
  return 'undetermined';
}

/**
 * Events an email has at most once, each recorded on its timeline as `email.<kind>` (a
 * timeline-only kind: Resend's webhooks have no such type) without moving its status: the
 * recording script drops a repeat, so a second click on an unsubscribe link counts nothing.
 */
export const ONCE_PER_EMAIL_EVENTS = ['unsubscribed'] as const;
export type OncePerEmailEvent = (typeof ONCE_PER_EMAIL_EVENTS)[number];

/** What a recorded event is about: a status it may move the email to, or a once-per-email event. */
export type RecordedEventKind = EmailStatus | OncePerEmailEvent;

export function isOncePerEmail(kind: RecordedEventKind): kind is OncePerEmailEvent {
  return (ONCE_PER_EMAIL_EVENTS as readonly string[]).includes(kind);
}

/**
 * The counters one recorded event adds 1 to (the `unique_*` ones excepted: the script counts an
 * email's first open or click itself, as only it knows whether one came before).
 */
export function eventMetrics(status: RecordedEventKind, data: Record<string, unknown>): CountedMetric[] {
  switch (status) {
    case 'unsubscribed':
    case 'sent':
    case 'delivered':
    case 'delivery_delayed':
    case 'complained':
    case 'opened':
    case 'clicked':
    case 'suppressed':
    case 'failed':
      return [status];
    case 'bounced':
      return ['bounced', `bounced_${bounceKind(data)}`];
    default:
      return [];
  }
}

import { z } from 'zod';

/**
 * Queue names. WARNING: these are persisted in Redis (BullMQ keys `bull:<name>:*`);
 * renaming one strands every job already queued under the old name.
 */
export const QUEUES = {
  /** Transactional sends (POST /emails, /emails/batch, SMTP submission): one job per email. */
  send: 'petrel-send',
  /** Broadcast sends: a separate lane so a broadcast can never delay a password reset. */
  sendBroadcast: 'petrel-send-broadcast',
  /** Webhook deliveries: one job per (event, endpoint). */
  webhooks: 'petrel-webhooks',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Payload of a send job. Content lives in the email record; the job carries ids only. */
export const sendJobSchema = z.object({
  v: z.literal(1),
  teamId: z.string().min(1),
  emailId: z.string().min(1),
});
export type SendJob = z.infer<typeof sendJobSchema>;

/** Redis stream that carries internal email events to the webhook dispatcher. */
export const EVENTS_STREAM = 'petrel:events';

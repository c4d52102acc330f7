/**
 * The email statuses the dashboard's hourly counters count (email-stats.ts): a leaf module, so
 * the script registry can build its Lua from it without an import cycle.
 */
export const COUNTED_STATUSES = ['sent', 'delivered', 'bounced', 'complained', 'opened', 'clicked'] as const;
export type CountedStatus = (typeof COUNTED_STATUSES)[number];

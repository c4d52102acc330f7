/**
 * The field layout of the metrics' counters: `t:<metric>` the team's total in the team's hourly
 * hash (email-stats.ts: the `<lane>:<status>` fields of GET /stats/emails live beside them);
 * `<domain>:<metric>` in the hour's per-domain hash (domain names hold no `:`) and
 * `<broadcastId>:<metric>` in its per-broadcast hash (`Keys.emailMetricsDomains`,
 * `Keys.emailMetricsBroadcasts`), so a query reads only the breakdown it asks for. A leaf module:
 * the script registry builds the Lua values from it (the include count-email-metrics) without an
 * import cycle.
 */
import { ONCE_PER_EMAIL_EVENTS, RECIPIENT_GROUPS } from '@petrel/core';
import { luaSet } from './lua-files.js';

export const METRIC_FIELD = { team: 't:' } as const;

/**
 * The protection counters on a broadcast's record (core broadcasts/protection.ts), by the metric
 * that adds to each: written by the include count-email-metrics, read by BroadcastsStore.
 */
export const PROTECTION_FIELDS = {
  sent: 'p_sent',
  bounced_permanent: 'p_hard_bounced',
  complained: 'p_complained',
} as const;

/** The `$[metrics.*]` values of lua/includes/count-email-metrics.lua. */
export const EMAIL_METRICS_LUA_VALUES: Readonly<Record<string, string>> = {
  'metrics.recipientGroups': luaSet(RECIPIENT_GROUPS),
  'metrics.teamField': `'${METRIC_FIELD.team}'`,
  'metrics.oncePerEmail': luaSet(ONCE_PER_EMAIL_EVENTS),
  'metrics.protectionFields': `{${Object.entries(PROTECTION_FIELDS)
    .map(([metric, field]) => `['${metric}'] = '${field}'`)
    .join(', ')}}`,
};

/**
 * The field layout of the metrics' counters in the team's hourly hash (email-stats.ts: the
 * `<lane>:<status>` fields of GET /stats/emails live beside them): `t:<metric>` the team's total,
 * `d:<domain>:<metric>` per sending domain (its name: domain names hold no `:`),
 * `b:<broadcastId>:<metric>` per broadcast. A leaf module: the script registry builds the Lua
 * values from it (petrelCountEmailEvents) without an import cycle.
 */
import { RECIPIENT_GROUPS } from '@petrel/core';
import { luaSet } from './lua-files.js';

export const METRIC_FIELD = { team: 't:', domain: 'd:', broadcast: 'b:' } as const;

/** The `$[metrics.*]` values of lua/petrelCountEmailEvents-5.lua. */
export const EMAIL_METRICS_LUA_VALUES: Readonly<Record<string, string>> = {
  'metrics.recipientGroups': luaSet(RECIPIENT_GROUPS),
  'metrics.teamField': `'${METRIC_FIELD.team}'`,
  'metrics.domainField': `'${METRIC_FIELD.domain}'`,
  'metrics.broadcastField': `'${METRIC_FIELD.broadcast}'`,
};

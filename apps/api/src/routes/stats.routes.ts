/**
 * GET /stats/emails (Petrel extension, for the dashboard's overview charts): the team's hourly
 * counts of sent, delivered, bounced, complained, opened and clicked events per lane, from the
 * counters the event-recording script keeps (email-stats.ts in the store).
 * Query: `from`, `to` (ISO 8601; default the last 24 hours; at most 31 days apart), `lane`
 * (`send` | `broadcast`; default both). One row per hour and lane, zeros included.
 */
import type { RequestHandler } from 'express';
import { SEND_LANES, validationError, type SendLane } from '@petrel/contracts';
import type { EmailStats } from '@petrel/store';
import type { RouteSpec } from './route-table.js';

const HOUR_MS = 3_600_000;
const MAX_RANGE_MS = 31 * 24 * HOUR_MS;

export interface StatsRouteDeps {
  stats: EmailStats;
  clock: { now(): number };
}

function timeParam(q: Record<string, unknown>, name: string, fallback: number): number {
  const v = q[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string') throw validationError(`${name}: must be given once, as a string`);
  const ms = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(ms))
    throw validationError(`${name}: must be an ISO 8601 date-time`);
  return ms;
}

export function statsRoutes(deps: StatsRouteDeps): RouteSpec[] {
  const emails: RequestHandler = async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const now = deps.clock.now();
    const to = timeParam(q, 'to', now);
    const from = timeParam(q, 'from', to - 24 * HOUR_MS);
    if (from >= to) throw validationError('from: must be before to');
    if (to - from > MAX_RANGE_MS) throw validationError('to: at most 31 days after from');
    const lane = q.lane;
    if (
      lane !== undefined &&
      !(typeof lane === 'string' && (SEND_LANES as readonly string[]).includes(lane))
    ) {
      throw validationError(`lane: must be one of ${SEND_LANES.join(', ')}`);
    }
    const rows = await deps.stats.read(res.locals.auth.teamId, from, to, lane as SendLane | undefined);
    res.json({ object: 'list', has_more: false, data: rows });
  };
  return [{ path: '/stats/emails', methods: { get: emails } }];
}

/**
 * One housekeeping round: drop the ids of expired emails from every team's listing (their
 * records are gone once the retention has passed, and a listing must not page through ids that
 * resolve to nothing), then report the send queues' job counts. It never deletes a record itself:
 * records expire by their own TTL. Safe to run from several schedulers at once (each step is
 * idempotent).
 */
import type { HousekeepingPorts } from './ports.js';

export interface HousekeepingOptions {
  /** How long email records are kept (EMAIL_RETENTION_DAYS, in ms). */
  retentionMs: number;
}

export interface HousekeepingResult {
  /** Listing entries removed in this round, across all teams. */
  trimmed: number;
}

export async function runHousekeeping(
  ports: HousekeepingPorts,
  opts: HousekeepingOptions,
): Promise<HousekeepingResult> {
  const cutoffMs = ports.clock.now() - opts.retentionMs;
  let trimmed = 0;
  for (const teamId of await ports.teams.teamIds()) {
    trimmed += await ports.listings.trimExpired(teamId, cutoffMs);
  }
  if (trimmed > 0) ports.observer.listingsTrimmed(trimmed);
  const counts = await ports.queues.counts();
  for (const [queue, byState] of Object.entries(counts)) {
    for (const [state, n] of Object.entries(byState)) ports.observer.queueJobs(queue, state, n);
  }
  return { trimmed };
}

/**
 * The ports of the housekeeping use-case. In production the Redis stores (teams, email listings),
 * the BullMQ send queues and the observability package satisfy them (wired by apps/scheduler);
 * packages/testing has in-memory versions.
 */
import type { Clock } from '../kernel/clock.js';

/** The teams whose data housekeeping visits. */
export interface TeamDirectory {
  teamIds(): Promise<string[]>;
}

/**
 * Per-team listings of emails by creation time. An email record expires on its own (its TTL is
 * the retention); its id stays in the listing until trimmed.
 */
export interface ExpiringListings {
  /** Remove ids of emails created before `cutoffMs`; returns how many were removed. */
  trimExpired(teamId: string, cutoffMs: number): Promise<number>;
}

/** Job counts of each queue by state (waiting, active, delayed, …). */
export interface QueueCounts {
  counts(): Promise<Record<string, Record<string, number>>>;
}

/** What a round reports, for metrics and logs. */
export interface HousekeepingObserver {
  /** The number of jobs of `queue` in `state` now (a gauge). */
  queueJobs(queue: string, state: string, count: number): void;
  /** A round removed `count` expired ids from the listings (called only when count > 0). */
  listingsTrimmed(count: number): void;
}

export interface HousekeepingPorts {
  teams: TeamDirectory;
  listings: ExpiringListings;
  queues: QueueCounts;
  observer: HousekeepingObserver;
  /** The time of the round: what is older than the retention at this instant has expired. */
  clock: Pick<Clock, 'now'>;
}

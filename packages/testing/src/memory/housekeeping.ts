/**
 * In-memory implementations of the housekeeping ports (packages/core/src/housekeeping/ports.ts):
 * teams with their email listings under the Redis store's trim rule (ids created strictly before
 * the cutoff go), scripted queue counts, and an observer that remembers what it was told.
 */
import type {
  ExpiringListings,
  HousekeepingObserver,
  HousekeepingPorts,
  QueueCounts,
  TeamDirectory,
} from '@petrel/core';
import { ManualClock } from './deliver-ports.js';

/** Teams and, per team, its listing: email id → creation time (ms). */
export class MemoryListings implements TeamDirectory, ExpiringListings {
  private readonly teams = new Map<string, Map<string, number>>();
  /** Teams whose trim throws, to exercise a failing round. */
  readonly failing = new Set<string>();

  /** Add a team (with an empty listing unless emails follow). */
  addTeam(teamId: string): this {
    if (!this.teams.has(teamId)) this.teams.set(teamId, new Map());
    return this;
  }

  /** List `emailId` for `teamId` as created at `createdMs`. */
  add(teamId: string, emailId: string, createdMs: number): this {
    this.addTeam(teamId).teams.get(teamId)!.set(emailId, createdMs);
    return this;
  }

  /** The ids listed for `teamId`, oldest first. */
  ids(teamId: string): string[] {
    return [...(this.teams.get(teamId) ?? new Map<string, number>())]
      .sort((a, b) => a[1] - b[1])
      .map(([id]) => id);
  }

  async teamIds(): Promise<string[]> {
    return [...this.teams.keys()];
  }

  async trimExpired(teamId: string, cutoffMs: number): Promise<number> {
    if (this.failing.has(teamId)) throw new Error(`listing of ${teamId} unavailable`);
    const listing = this.teams.get(teamId);
    if (!listing) return 0;
    let removed = 0;
    for (const [id, createdMs] of listing) {
      if (createdMs < cutoffMs) {
        listing.delete(id);
        removed += 1;
      }
    }
    return removed;
  }
}

/** Queue counts that are whatever the test sets. */
export class MemoryQueueCounts implements QueueCounts {
  constructor(public current: Record<string, Record<string, number>> = {}) {}

  async counts(): Promise<Record<string, Record<string, number>>> {
    return structuredClone(this.current);
  }
}

/** Remembers the gauges (`queue:state` → count) and every trim it was told about. */
export class RecordingHousekeepingObserver implements HousekeepingObserver {
  readonly jobs = new Map<string, number>();
  readonly trims: number[] = [];

  queueJobs(queue: string, state: string, count: number): void {
    this.jobs.set(`${queue}:${state}`, count);
  }

  listingsTrimmed(count: number): void {
    this.trims.push(count);
  }
}

/** A full set of in-memory housekeeping ports, with handles on each part; the clock reads `nowMs`. */
export function memoryHousekeeping(nowMs?: number): {
  listings: MemoryListings;
  queues: MemoryQueueCounts;
  observer: RecordingHousekeepingObserver;
  clock: ManualClock;
  ports: HousekeepingPorts;
} {
  const listings = new MemoryListings();
  const queues = new MemoryQueueCounts();
  const observer = new RecordingHousekeepingObserver();
  const clock = new ManualClock(nowMs);
  return { listings, queues, observer, clock, ports: { teams: listings, listings, queues, observer, clock } };
}

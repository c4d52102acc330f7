/**
 * What every port contract (./*.contract.ts) shares: a clock that moves on every reading, so
 * records created in one test never tie in a creation-time listing, fresh team ids, and the
 * paging rules every newest-first listing of core's ports keeps.
 */
import { describe, expect } from 'vitest';
import type { Page, PageRequest } from '@petrel/core';

/** A clock that moves 1 ms per reading. */
export interface TickingClock {
  now(): number;
}

function tickingClock(start = Date.parse('2030-01-01T00:00:00.000Z')): TickingClock {
  let t = start;
  return { now: () => t++ };
}

/** What one test of a contract works on: a port, made for it, and teams no other test uses. */
export interface ContractSetup<P> {
  port: P;
  team: string;
  /** Another team, for tests of tenant separation. */
  other: string;
}

/** Makes the port under test on the given clock (the in-memory one, or a store on Redis). */
export type MakePort<P> = (clock: TickingClock) => P;

/** A contract's `describe`: its tests call `setup()` for a fresh port and team. */
export function describePortContract<P>(
  title: string,
  makePort: MakePort<P>,
  tests: (setup: () => ContractSetup<P>) => void,
): void {
  describe(title, () =>
    tests(() => ({ port: makePort(tickingClock()), team: freshTeam(), other: freshTeam() })),
  );
}

/** A new team id on every call (unique within the process, so suites may share a store). */
let teams = 0;
function freshTeam(): string {
  return `contract-team-${process.pid}-${++teams}`;
}

/** An id that no port ever gives out (a valid UUIDv7 shape). */
export const UNKNOWN_ID = '0198a0a0-0000-7000-8000-0000000000ff';

/**
 * The listing rules core relies on, checked on `ids` (created oldest first): newest first,
 * `limit` and `hasMore`, `after` continues past its item, `before` pages back up to it, and an
 * unknown cursor is null (the route's 404/422), never an empty page.
 */
export async function expectNewestFirstPaging(
  list: (page: PageRequest) => Promise<Page<{ id: string }> | null>,
  ids: readonly string[],
): Promise<void> {
  const newest = [...ids].reverse();
  const all = await list({ limit: 100 });
  expect(all?.items.map((x) => x.id)).toEqual(newest);
  expect(all?.hasMore).toBe(false);
  const first = await list({ limit: 2 });
  expect(first?.items.map((x) => x.id)).toEqual(newest.slice(0, 2));
  expect(first?.hasMore).toBe(true);
  const next = await list({ limit: 2, after: newest[1]! });
  expect(next?.items.map((x) => x.id)).toEqual(newest.slice(2, 4));
  const back = await list({ limit: 2, before: newest[3]! });
  expect(back?.items.map((x) => x.id)).toEqual(newest.slice(1, 3));
  expect(back?.hasMore).toBe(true);
  const last = await list({ limit: 2, after: newest.at(-2)! });
  expect(last?.items.map((x) => x.id)).toEqual(newest.slice(-1));
  expect(last?.hasMore).toBe(false);
  expect(await list({ limit: 2, after: UNKNOWN_ID })).toBeNull();
}

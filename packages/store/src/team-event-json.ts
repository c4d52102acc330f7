/**
 * A team event (core's `teamEvent` envelope) as the JSON a store's script appends to the team's
 * events stream with the write it describes; stamped with the write's own time.
 */
import type { TeamEvent } from '@petrel/contracts';
import { newId, teamEvent } from '@petrel/core';

export function teamEventJson(
  type: TeamEvent['type'],
  teamId: string,
  data: Record<string, unknown>,
  nowMs: number,
): string {
  const stamp = { clock: { now: () => nowMs }, ids: { newEventId: () => newId(nowMs) } };
  return JSON.stringify(teamEvent(type, teamId, data, stamp));
}

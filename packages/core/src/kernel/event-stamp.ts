/**
 * The envelope every event Petrel records and publishes shares (email and team events alike):
 * a fresh id, the type, the time, the team, around the webhook-shaped `data` Resend sends.
 */
import type { Clock } from './clock.js';
import type { IdSource } from './ids.js';

/** What stamps a new event: its id and its time. */
export interface EventStamp {
  clock: Pick<Clock, 'now'>;
  ids: Pick<IdSource, 'newEventId'>;
}

/** A new event of `type` about `teamId`, stamped with a fresh id and the current time. */
export function stampEvent<T extends string>(
  type: T,
  teamId: string,
  data: Record<string, unknown>,
  stamp: EventStamp,
): { id: string; type: T; created_at: string; teamId: string; data: Record<string, unknown> } {
  return {
    id: stamp.ids.newEventId(),
    type,
    created_at: new Date(stamp.clock.now()).toISOString(),
    teamId,
    data,
  };
}

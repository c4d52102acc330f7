/**
 * An email event as the JSON the email scripts append to the timeline and the events stream, with
 * `data.sequence` as its last member: the scripts number the events of one email 1, 2, 3… in the
 * order they record them (consumers of webhooks order by it, as timestamps of one millisecond or
 * of different processes cannot), and a placeholder 0 there lets a script fill in the number by
 * cutting the last three characters (`0}}`) instead of decoding the JSON.
 */
import type { EmailEvent } from '@petrel/contracts';

/** What a sequenced event's JSON ends with before a script numbers it. */
export const SEQUENCE_PLACEHOLDER_END = '"sequence":0}}';

export function sequencedEventJson(event: EmailEvent, sequence = 0): string {
  const { data, ...head } = event;
  const { sequence: _given, ...rest } = data;
  return JSON.stringify({ ...head, data: { ...rest, sequence } });
}

/**
 * The record reads and the outcomes of the emails of one team that start or finish together,
 * each kind in one script call (EmailsStore.getManyForSend, recordEventsMany) instead of one per
 * email. A call is a socket write and a reply to parse on the worker's side, a command dispatch
 * on Redis's; the emails of a group job finish in bursts (the relay's replies to several pooled
 * connections arrive in one read of the event loop) and the next ones start together (one read
 * of the job's lock lets them go: group-lock.ts), so one call carries several. TurnBatcher
 * gathers them per team — a team's keys share one hash slot, so each call stays in one slot
 * (Redis Cluster) — and writes what arrived in a turn of the event loop, or, while the team's
 * previous call is in flight, what arrived meanwhile.
 *
 * Each email gets its own reply, or the error of its own part: the script runs each email's part
 * on its own. A call that fails as a whole (Redis unreachable) fails each email's write, which
 * the outcome writer then retries for that email within its own window (outcome-writer.ts).
 */
import type { EmailRecordStore, EmailRecordWriter } from '@petrel/core';
import { TurnBatcher, type EmailsStore, type RecordEventsCall } from '@petrel/store';

/** The store's reads and writes this needs. */
export type BatchedOutcomeStore = Pick<
  EmailsStore,
  'getForSend' | 'getManyForSend' | 'recordEvents' | 'recordEventsMany' | 'setFields'
>;

/** At most this many emails in one call (the worker's concurrency bounds a burst anyway). */
const MAX_EMAILS_PER_CALL = 100;

interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * One call per team and turn: `many` for several items (a reply or an Error each, in order),
 * `one` for an item alone in its turn (the one-email command, as without batches).
 */
function perTeam<T, R>(
  one: (teamId: string, item: T) => Promise<R>,
  many: (teamId: string, items: T[]) => Promise<(R | Error)[]>,
): (teamId: string, item: T) => Promise<R> {
  const batches = new TurnBatcher<Waiting<T, R>>(async (teamId, waiting) => {
    try {
      if (waiting.length === 1) return waiting[0]!.resolve(await one(teamId, waiting[0]!.item));
      const results = await many(
        teamId,
        waiting.map((w) => w.item),
      );
      results.forEach((r, i) => (r instanceof Error ? waiting[i]!.reject(r) : waiting[i]!.resolve(r)));
    } catch (err) {
      for (const w of waiting) w.reject(err);
    }
  }, MAX_EMAILS_PER_CALL);
  return (teamId, item) =>
    new Promise<R>((resolve, reject) => batches.add(teamId, { item, resolve, reject }));
}

/** The outcome writes of deliver-email, batched. */
export function batchedOutcomes(store: BatchedOutcomeStore): EmailRecordWriter {
  const record = perTeam<RecordEventsCall, unknown>(
    (teamId, c) => store.recordEvents(teamId, c.emailId, c.items, c.fields, c.also),
    (teamId, calls) => store.recordEventsMany(teamId, calls),
  );
  return {
    recordEvents: (teamId, emailId, items, fields, also) => record(teamId, { emailId, items, fields, also }),
    setFields: (teamId, emailId, fields) => store.setFields(teamId, emailId, fields),
  };
}

/** The record port of deliver-email: its reads batched, its writes the store's own. */
export function batchedRecords(store: BatchedOutcomeStore): EmailRecordStore {
  const read = perTeam(
    (teamId, emailId: string) => store.getForSend(teamId, emailId),
    (teamId, ids) => store.getManyForSend(teamId, ids),
  );
  return {
    getForSend: read,
    recordEvents: (...args) => store.recordEvents(...args),
    setFields: (...args) => store.setFields(...args),
  };
}

/**
 * Use-case: the durability commit of an accepted request, in its order. An email's record lives
 * in its team's hash slot and its send job in its queue shard's slot, and Redis Cluster runs no
 * transaction across slots (Redis Cluster specification, "Keys hash tags"), so the commit is
 * three writes, each idempotent, ordered so that a crash between any two loses nothing:
 *
 *   1. stage: the records and their outbox entries (one atomic write in the team's slot);
 *   2. enqueue: the send jobs (each with a deterministic job id, so writing one twice keeps one);
 *   3. clear: the outbox entries go, and the Idempotency-Key's response is stored with them.
 *
 * The jobs: the emails of the request due at once share ONE group job (job id derived from the
 * first email id; its emails' records name that id as their `group`), because a BullMQ job costs
 * about as much Redis work as the record itself; each scheduled email has its own delayed job
 * (job id = email id) so cancel and reschedule find it. A group of one is an email's own job:
 * the same cost, and nothing to look up. The outbox entry follows the job: one per group, one
 * per own job, so the relay re-creates exactly the same jobs.
 *
 * The answer goes out after step 3, so an email answered 2xx (first time or replayed) has its
 * record and its job. A crash after step 1 leaves records whose outbox entries the outbox relay
 * turns into jobs (packages/core/src/outbox); a retry under the same Idempotency-Key recomputes
 * the same ids and runs the steps again.
 */
import type { SendJobSpec, SendLane } from '@petrel/contracts';
import type { Clock } from '../kernel/clock.js';
import type { AcceptedEmail } from './ports.js';

/** An accepted email as step 1 writes it: its lane and when its job is due (0: at once). */
export interface StagedEmail extends AcceptedEmail {
  lane: Extract<SendLane, 'send'>;
  /** Epoch ms its send job is due; its outbox entry carries it. */
  dueMs: number;
  /** The first email id of the group job that sends it, when it is in one (the watchdog looks there). */
  group?: string;
}

/** A send job of step 2. */
export type AcceptedSendJob = SendJobSpec;

/** An outbox entry of steps 1 and 3: an email's own job, or a group's (`emailIds`, `emailId` the first). */
export interface AcceptedOutboxEntry {
  lane: StagedEmail['lane'];
  emailId: string;
  dueMs: number;
  emailIds?: readonly string[];
}

/** The response stored under the request's Idempotency-Key in step 3. */
export interface AcceptCompletion {
  token: unknown;
  status: number;
  body: string;
}

/** The three writes (each idempotent) and the clock that stamps the records. */
export interface AcceptCommitPorts {
  clock: Pick<Clock, 'now'>;
  stage(
    teamId: string,
    emails: StagedEmail[],
    createdAt: Date,
    outbox: readonly AcceptedOutboxEntry[],
  ): Promise<unknown>;
  enqueue(lane: StagedEmail['lane'], jobs: readonly AcceptedSendJob[]): Promise<void>;
  clear(
    teamId: string,
    entries: readonly AcceptedOutboxEntry[],
    completion: AcceptCompletion | undefined,
  ): Promise<void>;
}

export async function commitAcceptance(
  cmd: { teamId: string; emails: readonly AcceptedEmail[]; completion: AcceptCompletion | undefined },
  ports: AcceptCommitPorts,
): Promise<void> {
  const { teamId } = cmd;
  const createdAt = new Date(ports.clock.now());
  const createdMs = createdAt.getTime();
  const dueNow = cmd.emails.filter((a) => a.delayMs <= 0).map((a) => a.id);
  const group = dueNow.length > 1 ? dueNow[0] : undefined;
  const staged = cmd.emails.map((a): StagedEmail => {
    const later = a.delayMs > 0;
    return {
      ...a,
      lane: 'send',
      dueMs: later ? createdMs + a.delayMs : 0,
      ...(!later && group !== undefined ? { group } : {}),
    };
  });
  const jobs: AcceptedSendJob[] = [];
  const entries: AcceptedOutboxEntry[] = [];
  if (group !== undefined) {
    jobs.push({ teamId, emailIds: dueNow });
    entries.push({ lane: 'send', emailId: group, dueMs: 0, emailIds: dueNow });
  }
  for (const e of staged) {
    if (e.group !== undefined) continue;
    jobs.push({ teamId, emailId: e.id, ...(e.delayMs > 0 ? { delayMs: e.delayMs } : {}) });
    entries.push({ lane: e.lane, emailId: e.id, dueMs: e.dueMs });
  }
  await ports.stage(teamId, staged, createdAt, entries);
  await ports.enqueue('send', jobs);
  await ports.clear(teamId, entries, cmd.completion);
}

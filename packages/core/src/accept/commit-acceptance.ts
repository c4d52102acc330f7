/**
 * Use-case: the durability commit of an accepted request, in its order. An email's record lives
 * in its team's hash slot and its send job in its queue shard's slot, and Redis Cluster runs no
 * transaction across slots (Redis Cluster specification, "Keys hash tags"), so the commit is
 * three writes, each idempotent, ordered so that a crash between any two loses nothing:
 *
 *   1. stage: the records and their outbox entries (one atomic write in the team's slot);
 *   2. enqueue: the send jobs (job id = email id, so writing one twice keeps one);
 *   3. clear: the outbox entries go, and the Idempotency-Key's response is stored with them.
 *
 * The answer goes out after step 3, so an email answered 2xx (first time or replayed) has its
 * record and its job. A crash after step 1 leaves records whose outbox entries the outbox relay
 * turns into jobs (packages/core/src/outbox); a retry under the same Idempotency-Key recomputes
 * the same ids and runs the steps again.
 */
import type { SendLane } from '@petrel/contracts';
import type { Clock } from '../kernel/clock.js';
import type { AcceptedEmail } from './ports.js';

/** An accepted email as step 1 writes it: its lane and when its job is due (0: at once). */
export interface StagedEmail extends AcceptedEmail {
  lane: Extract<SendLane, 'send'>;
  /** Epoch ms its send job is due; its outbox entry carries it. */
  dueMs: number;
}

/** A send job of step 2. */
export interface AcceptedSendJob {
  teamId: string;
  emailId: string;
  delayMs?: number;
}

/** An outbox entry step 3 removes. */
export interface AcceptedOutboxEntry {
  lane: StagedEmail['lane'];
  emailId: string;
  dueMs: number;
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
  stage(teamId: string, emails: StagedEmail[], createdAt: Date): Promise<unknown>;
  enqueue(lane: StagedEmail['lane'], jobs: readonly AcceptedSendJob[]): Promise<void>;
  clear(
    teamId: string,
    entries: AcceptedOutboxEntry[],
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
  const staged = cmd.emails.map((a): StagedEmail => ({
    ...a,
    lane: 'send',
    dueMs: a.delayMs > 0 ? createdMs + a.delayMs : 0,
  }));
  await ports.stage(teamId, staged, createdAt);
  await ports.enqueue(
    'send',
    staged.map((e) => ({ teamId, emailId: e.id, ...(e.delayMs > 0 ? { delayMs: e.delayMs } : {}) })),
  );
  await ports.clear(
    teamId,
    staged.map((e) => ({ lane: e.lane, emailId: e.id, dueMs: e.dueMs })),
    cmd.completion,
  );
}

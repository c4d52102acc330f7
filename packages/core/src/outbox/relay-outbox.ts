/**
 * One outbox relay round: for every team, the outbox entries older than the grace period — the
 * emails whose acceptance was interrupted after their records were written (a crash, a failed
 * enqueue) — get their send jobs, then leave the outbox.
 *
 * Why it is safe to run at any time, from several schedulers at once, and next to the API:
 * enqueueing is idempotent (job id = email id: an existing job is left alone), and an entry is
 * removed only after its job was enqueued, so a crash of the relay leaves the entry for the next
 * round. The grace keeps the relay off the entries of requests still in flight (their own
 * enqueue follows within milliseconds); racing one anyway only repeats an idempotent enqueue.
 * A job enqueued again after its email was already handled (its job done and removed) finds the
 * email past `queued` and sends nothing (deliverEmail skips it).
 *
 * Cost: one read of the team directory and one range read per team per round (almost always of
 * an empty outbox), plus the jobs actually relayed — T teams every interval I cost T / I small
 * reads a second (10,000 teams every 15 s: ~670/s), independent of the email volume.
 */
import type { SendLane } from '@petrel/contracts';
import type { OutboxEntry, OutboxRelayPorts } from './ports.js';

export interface OutboxRelayOptions {
  /** Only entries accepted at least this long ago are relayed (OUTBOX_GRACE_MS). */
  graceMs: number;
  /** Entries read per team and step (default 500). */
  batchSize?: number;
  /** At most this many entries per team and round (default 50,000); the rest waits a round. */
  maxPerTeam?: number;
}

export interface OutboxRelayResult {
  /** Emails whose jobs the round enqueued, across all teams. */
  relayed: number;
  /** Teams whose outbox failed this round (reported to the observer). */
  failedTeams: number;
}

export async function relayOutbox(
  ports: OutboxRelayPorts,
  opts: OutboxRelayOptions,
): Promise<OutboxRelayResult> {
  const limit = opts.batchSize ?? 500;
  const maxPerTeam = opts.maxPerTeam ?? 50_000;
  const nowMs = ports.clock.now();
  const before = nowMs - opts.graceMs;
  let relayed = 0;
  let failedTeams = 0;
  for (const teamId of await ports.teams.teamIds()) {
    let count = 0;
    try {
      for (;;) {
        const entries = await ports.outbox.pending(teamId, before, limit);
        if (entries.length === 0) break;
        for (const [lane, jobs] of byLane(entries)) {
          await ports.queues.enqueue(
            lane,
            jobs.map((e) =>
              // a group's entry carries all its emails, so the relay makes the very job acceptance made
              e.emailIds
                ? { teamId, emailIds: e.emailIds }
                : {
                    teamId,
                    emailId: e.emailId,
                    ...(e.dueMs > nowMs ? { delayMs: e.dueMs - nowMs } : {}),
                  },
            ),
          );
        }
        await ports.outbox.remove(teamId, entries);
        count += entries.reduce((n, e) => n + (e.emailIds?.length ?? 1), 0);
        if (entries.length < limit || count >= maxPerTeam) break;
      }
    } catch (err) {
      failedTeams += 1;
      ports.observer.failed(teamId, err);
    }
    if (count > 0) ports.observer.relayed(teamId, count);
    relayed += count;
  }
  return { relayed, failedTeams };
}

function byLane(entries: OutboxEntry[]): Map<SendLane, OutboxEntry[]> {
  const lanes = new Map<SendLane, OutboxEntry[]>();
  for (const e of entries) {
    const list = lanes.get(e.lane);
    if (list) list.push(e);
    else lanes.set(e.lane, [e]);
  }
  return lanes;
}

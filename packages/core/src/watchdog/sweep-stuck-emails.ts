/**
 * The stuck-email watchdog, one round: report how old the oldest unfinished email of each lane
 * is, then look at every email that has been overdue for `stuckAfterMs` (from each team's
 * index of unfinished emails, oldest first — never a scan of all emails) and re-enqueue its lost
 * job once, or end it as `failed` with the reason on its timeline (stuck-decision.ts); then
 * re-enqueue contact imports left `queued` without a job. Safe to run from several schedulers
 * at once: the re-enqueue mark is taken atomically, a job id is the email (import) id, and a
 * failure only moves a status forward.
 */
import { SEND_LANES, type SendLane } from '@petrel/contracts';
import { emailEvent } from '../emails/email-event.js';
import type { UnfinishedEntry, WatchdogAction, WatchdogPorts, WatchedEmail } from './ports.js';
import { decideStuck } from './stuck-decision.js';

export interface SweepOptions {
  /** WATCHDOG_STUCK_AFTER_S in ms: how long past due before the watchdog looks at an email. */
  stuckAfterMs: number;
  /** The longest a delivery may take by the retry ladder (retryWindowMs), ms. */
  retryWindowMs: number;
  /** Most emails looked at per team and lane in one round (the rest wait for the next). */
  batch?: number;
}

export type SweepResult = Record<WatchdogAction, number> & {
  /** Age of the oldest unfinished email per lane, seconds. */
  oldestAgeS: Record<SendLane, number>;
};

export const DEFAULT_SWEEP_BATCH = 500;

export async function sweepStuckEmails(ports: WatchdogPorts, opts: SweepOptions): Promise<SweepResult> {
  const nowMs = ports.clock.now();
  const result: SweepResult = {
    requeued: 0,
    failed: 0,
    forgotten: 0,
    import_requeued: 0,
    oldestAgeS: { send: 0, broadcast: 0 },
  };
  const act = (action: WatchdogAction, teamId: string, id: string, reason: string) => {
    result[action] += 1;
    ports.observer.acted(action, { teamId, id, reason });
  };
  const teams = await ports.teams.teamIds();

  for (const lane of SEND_LANES) {
    let oldest = Infinity;
    for (const teamId of teams)
      oldest = Math.min(oldest, (await ports.unfinished.oldest(teamId, lane)) ?? Infinity);
    const age = Number.isFinite(oldest) ? Math.max(0, (nowMs - oldest) / 1000) : 0;
    result.oldestAgeS[lane] = age;
    ports.observer.oldestAge(lane, age);
  }

  const cutoffMs = nowMs - opts.stuckAfterMs;
  for (const teamId of teams) {
    for (const lane of SEND_LANES) {
      const entries = await ports.unfinished.overdue(
        teamId,
        lane,
        cutoffMs,
        opts.batch ?? DEFAULT_SWEEP_BATCH,
      );
      for (const entry of entries) await sweepOne(ports, opts, nowMs, teamId, lane, entry, act);
    }
    if (ports.imports) {
      for (const importId of await ports.imports.queuedBefore(teamId, cutoffMs)) {
        if (await ports.imports.hasJob(importId)) continue;
        await ports.imports.enqueue(teamId, importId);
        act('import_requeued', teamId, importId, 'queued without a job');
      }
    }
  }
  return result;
}

async function sweepOne(
  ports: WatchdogPorts,
  opts: SweepOptions,
  nowMs: number,
  teamId: string,
  lane: SendLane,
  entry: UnfinishedEntry,
  act: (action: WatchdogAction, teamId: string, id: string, reason: string) => void,
): Promise<void> {
  const { emailId } = entry;
  // The job first: a job that is gone was gone before the record was read, and a worker records
  // an email's outcome before its job ends, so a record read now that is unfinished is stuck.
  let job = await ports.jobs.state(lane, emailId);
  const email = await ports.unfinished.get(teamId, emailId);
  if (!email) {
    await ports.unfinished.forget(teamId, lane, emailId);
    return act('forgotten', teamId, emailId, 'its record is gone');
  }
  // An email accepted with others due at once is sent by their group's job until it gets a job
  // of its own (a retry, a deferral). The group's job is read after the record: if it ended in
  // between, the email was handled (its status is read on the next round) or handed to its own
  // job, and a re-enqueue of an own job that exists keeps it — never a second send.
  if (job.state === 'missing' && email.group !== undefined)
    job = await ports.jobs.state(lane, emailId, email.group);
  const decision = decideStuck({
    status: email.status,
    dueMs: dueMsOf(email),
    indexedMs: entry.dueMs,
    requeuedMs: email.requeuedMs,
    attempts: email.attempts,
    job,
    nowMs,
    stuckAfterMs: opts.stuckAfterMs,
    retryWindowMs: opts.retryWindowMs,
  });
  switch (decision.action) {
    case 'wait':
      return;
    case 'reindex':
      return ports.unfinished.reindex(teamId, lane, emailId, decision.dueMs);
    case 'forget':
      await ports.unfinished.forget(teamId, lane, emailId);
      return act('forgotten', teamId, emailId, decision.reason);
    case 'requeue': {
      if (!(await ports.unfinished.markRequeued(teamId, emailId, nowMs))) return; // another round did
      try {
        await ports.jobs.enqueue(lane, [{ teamId, emailId, delayMs: decision.delayMs }]);
      } catch (err) {
        await ports.unfinished.unmarkRequeued(teamId, emailId).catch(() => undefined);
        throw err;
      }
      return act('requeued', teamId, emailId, decision.reason);
    }
    case 'fail': {
      // a job that starts now would send an email recorded as failed: remove it first, or wait
      if (decision.removeJob && !(await ports.jobs.remove(lane, emailId))) return;
      await fail(ports, teamId, email, decision.reason);
      return act('failed', teamId, emailId, decision.reason);
    }
  }
}

/** Ends the email as `failed`, the reason on its timeline (and in its `email.failed` webhook). */
async function fail(
  ports: WatchdogPorts,
  teamId: string,
  email: WatchedEmail,
  reason: string,
): Promise<void> {
  const event = emailEvent(
    'email.failed',
    teamId,
    email,
    { failed: { reason: `watchdog: ${reason}` } },
    ports,
  );
  await ports.unfinished.recordEvent(teamId, email.id, 'failed', event);
}

function dueMsOf(email: WatchedEmail): number {
  const scheduled = email.scheduledAt ? Date.parse(email.scheduledAt) : NaN;
  return Number.isFinite(scheduled) ? scheduled : email.createdMs;
}

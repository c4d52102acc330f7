import { describe, expect, it } from 'vitest';
import { sendGroupJobId } from '@petrel/contracts';
import { memoryWatchdog } from '@petrel/testing';
import { decideStuck, retryWindowMs, type StuckInput } from './stuck-decision.js';
import { sweepStuckEmails } from './sweep-stuck-emails.js';

const NOW = Date.parse('2026-01-02T12:00:00.000Z');
const MIN = 60_000;
const base: StuckInput = {
  status: 'queued',
  dueMs: NOW - 20 * MIN,
  indexedMs: NOW - 20 * MIN,
  requeuedMs: null,
  attempts: 0,
  job: { state: 'missing' },
  nowMs: NOW,
  stuckAfterMs: 10 * MIN,
  retryWindowMs: 60 * MIN,
};

describe('decideStuck', () => {
  it.each<[string, Partial<StuckInput>, Record<string, unknown>]>([
    ['delivered meanwhile: the index lagged', { status: 'delivered' }, { action: 'forget' }],
    ['canceled', { status: 'canceled' }, { action: 'forget' }],
    ['job lost, never re-enqueued', {}, { action: 'requeue', delayMs: 0 }],
    ['job completed (removed) while still queued', { job: { state: 'completed' } }, { action: 'requeue' }],
    [
      'job lost again after a re-enqueue',
      { requeuedMs: NOW - 11 * MIN },
      { action: 'fail', removeJob: false },
    ],
    [
      'job failed (stalled too often)',
      { job: { state: 'failed', failedReason: 'job stalled more than allowable limit' } },
      {
        action: 'fail',
        reason: expect.stringMatching(/stalled more than allowable limit/),
        removeJob: false,
      },
    ],
    ['a worker holds it', { job: { state: 'active' } }, { action: 'wait' }],
    ['waiting within the retry window: a backlog', { job: { state: 'waiting' } }, { action: 'wait' }],
    [
      'waiting long past the window before any attempt: still a backlog',
      { dueMs: NOW - 600 * MIN, indexedMs: NOW - 600 * MIN, job: { state: 'waiting' } },
      { action: 'wait' },
    ],
    [
      'queued again after an attempt, long past the window',
      { attempts: 2, dueMs: NOW - 600 * MIN, indexedMs: NOW - 600 * MIN, job: { state: 'waiting' } },
      { action: 'fail', removeJob: true },
    ],
    [
      'delayed long past the retry window',
      {
        status: 'delivery_delayed',
        dueMs: NOW - 71 * MIN,
        indexedMs: NOW - 71 * MIN,
        job: { state: 'delayed' },
      },
      { action: 'fail', removeJob: true, reason: expect.stringMatching(/past its retry window/) },
    ],
    [
      'rescheduled to later: reindexed, not touched',
      { status: 'scheduled', dueMs: NOW + 60 * MIN },
      { action: 'reindex', dueMs: NOW + 60 * MIN },
    ],
    ['scheduled past due and lost', { status: 'scheduled' }, { action: 'requeue', delayMs: 0 }],
  ])('%s', (_name, over, expected) => {
    expect(decideStuck({ ...base, ...over })).toMatchObject(expected);
  });

  it('the retry window is the ladder with full jitter, scaled', () => {
    expect(retryWindowMs([60, 300], 1, 0.2)).toBe(432_000);
    expect(retryWindowMs([1, 1, 1], 0.5, 0.2)).toBe(1_800);
  });
});

describe('sweepStuckEmails', () => {
  const opts = { stuckAfterMs: 10 * MIN, retryWindowMs: 60 * MIN };

  it('re-enqueues a lost job once, then fails the email when it is lost again', async () => {
    const w = memoryWatchdog(NOW);
    w.emails.add({ id: 'e1', teamId: 't', createdMs: NOW - 20 * MIN });
    const first = await sweepStuckEmails(w.ports, opts);
    expect(first).toMatchObject({ requeued: 1, failed: 0 });
    expect(w.jobs.enqueued).toEqual([{ lane: 'send', emailId: 'e1', delayMs: 0 }]);

    // a second round while the job exists does nothing
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ requeued: 0, failed: 0 });

    w.jobs.states.delete('e1'); // lost again
    w.clock.advance(MIN);
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ requeued: 0, failed: 1 });
    const email = await w.emails.get('t', 'e1');
    expect(email?.status).toBe('failed');
    expect(w.emails.timelines.get('e1')).toEqual([
      expect.objectContaining({
        type: 'email.failed',
        data: expect.objectContaining({
          failed: { reason: expect.stringMatching(/^watchdog: .*lost again/) },
        }),
      }),
    ]);
    expect(w.emails.indexed('t', 'send')).toEqual([]);
    expect(w.observer.actions.map((a) => a.action)).toEqual(['requeued', 'failed']);
  });

  it('leaves alone what is not overdue, running, or finished; forgets what the index kept', async () => {
    const w = memoryWatchdog(NOW);
    w.emails.add({ id: 'young', teamId: 't', createdMs: NOW - 5 * MIN });
    w.emails.add({ id: 'running', teamId: 't', createdMs: NOW - 30 * MIN });
    w.jobs.states.set('running', { state: 'active' });
    w.emails.add({ id: 'lagged', teamId: 't', createdMs: NOW - 30 * MIN });
    w.emails.records.get('lagged')!.status = 'delivered'; // the index entry stayed behind
    const r = await sweepStuckEmails(w.ports, opts);
    expect(r).toMatchObject({ requeued: 0, failed: 0, forgotten: 1 });
    expect(w.emails.indexed('t', 'send')).toEqual(['young', 'running']);
    expect(w.jobs.enqueued).toEqual([]);
  });

  it('an email waiting or running inside its group job is not stuck; once the group job is gone it is re-enqueued as its own', async () => {
    const w = memoryWatchdog(NOW);
    // a backlog: the group's job has waited 30 min (past WATCHDOG_STUCK_AFTER_S), its emails have no job of their own
    w.emails.add({ id: 'g1', teamId: 't', createdMs: NOW - 30 * MIN, group: 'g1' });
    w.emails.add({ id: 'g2', teamId: 't', createdMs: NOW - 30 * MIN, group: 'g1' });
    w.jobs.states.set(sendGroupJobId('g1'), { state: 'waiting' });
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ requeued: 0, failed: 0, forgotten: 0 });
    w.jobs.states.set(sendGroupJobId('g1'), { state: 'active' });
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ requeued: 0, failed: 0, forgotten: 0 });
    expect(w.jobs.enqueued).toEqual([]);
    expect(w.emails.indexed('t', 'send')).toEqual(['g1', 'g2']);

    // the group's job lost (its emails still queued): each email gets its own job, once
    w.jobs.states.delete(sendGroupJobId('g1'));
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ requeued: 2 });
    expect(w.jobs.enqueued.map((j) => j.emailId)).toEqual(['g1', 'g2']);
  });

  it('fails an email stuck behind a job long past the retry window, removing the job first', async () => {
    const w = memoryWatchdog(NOW);
    w.emails.add({ id: 'old', teamId: 't', status: 'delivery_delayed', createdMs: NOW - 2 * 60 * MIN });
    w.jobs.states.set('old', { state: 'delayed' });
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ failed: 1 });
    expect(w.jobs.removed).toEqual(['old']);

    // a job that a worker took meanwhile is not removed, and the email not failed
    w.emails.add({ id: 'taken', teamId: 't', status: 'delivery_delayed', createdMs: NOW - 2 * 60 * MIN });
    w.jobs.states.set('taken', { state: 'delayed' });
    w.jobs.remove = async () => false;
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ failed: 0 });
    expect((await w.emails.get('t', 'taken'))?.status).toBe('delivery_delayed');
  });

  it('a scheduled email: due time from its record, re-enqueued once past due', async () => {
    const w = memoryWatchdog(NOW);
    const scheduled = (id: string, dueMs: number) =>
      w.emails.add(
        {
          id,
          teamId: 't',
          status: 'scheduled',
          scheduledAt: new Date(dueMs).toISOString(),
          createdMs: NOW - 90 * MIN,
        },
        NOW - 90 * MIN, // indexed under an older due time (rescheduled since)
      );
    scheduled('later', NOW + 30 * MIN);
    scheduled('past', NOW - 15 * MIN);
    await sweepStuckEmails(w.ports, opts);
    expect(w.jobs.enqueued).toEqual([{ lane: 'send', emailId: 'past', delayMs: 0 }]);
    expect((await w.emails.overdue('t', 'send', NOW, 10)).map((e) => e.emailId)).toEqual(['past']);
  });

  it('reports the age of the oldest unfinished email per lane over all teams', async () => {
    const w = memoryWatchdog(NOW);
    w.emails.add({ id: 'a', teamId: 't1', createdMs: NOW - 2 * MIN });
    w.emails.add({ id: 'b', teamId: 't2', createdMs: NOW - 3 * MIN });
    w.jobs.states.set('a', { state: 'waiting' });
    w.jobs.states.set('b', { state: 'waiting' });
    const r = await sweepStuckEmails(w.ports, opts);
    expect(r.oldestAgeS).toEqual({ send: 180, broadcast: 0 });
    expect(w.observer.ages).toEqual([
      ['send', 180],
      ['broadcast', 0],
    ]);
  });

  it('clears the re-enqueue mark when the queue refuses, so the next round tries again', async () => {
    const w = memoryWatchdog(NOW);
    w.emails.add({ id: 'e', teamId: 't', createdMs: NOW - 20 * MIN });
    w.jobs.failEnqueue = true;
    await expect(sweepStuckEmails(w.ports, opts)).rejects.toThrow(/unavailable/);
    expect((await w.emails.get('t', 'e'))?.requeuedMs).toBeNull();
    w.jobs.failEnqueue = false;
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ requeued: 1 });
  });

  it('re-enqueues contact imports left queued without a job', async () => {
    const w = memoryWatchdog(NOW);
    w.imports.imports.set('i-old', { teamId: 't', createdMs: NOW - 20 * MIN, job: false });
    w.imports.imports.set('i-running', { teamId: 't', createdMs: NOW - 20 * MIN, job: true });
    w.imports.imports.set('i-new', { teamId: 't', createdMs: NOW - MIN, job: false });
    expect(await sweepStuckEmails(w.ports, opts)).toMatchObject({ import_requeued: 1 });
    expect(w.imports.enqueued).toEqual(['i-old']);
  });
});

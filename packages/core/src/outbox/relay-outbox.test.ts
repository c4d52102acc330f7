import { describe, expect, it } from 'vitest';
import { sendGroupJobId } from '@petrel/contracts';
import { memoryOutboxRelay } from '@petrel/testing';
import { relayOutbox } from './relay-outbox.js';

const NOW = 1_800_000_000_000;
const GRACE = 30_000;

describe('relayOutbox', () => {
  it('enqueues the entries older than the grace of every team and removes them; younger ones wait', async () => {
    const r = memoryOutboxRelay(NOW);
    r.outbox
      .add('t1', { emailId: 'old', acceptedMs: NOW - 60_000 })
      .add('t1', { emailId: 'at-grace', acceptedMs: NOW - GRACE })
      .add('t1', { emailId: 'young', acceptedMs: NOW - 1_000 })
      .add('t2', { emailId: 'other-team', acceptedMs: NOW - 45_000, lane: 'broadcast' })
      .addTeam('t3');

    const result = await relayOutbox(r.ports, { graceMs: GRACE });

    expect(result).toEqual({ relayed: 2, failedTeams: 0 });
    expect([...r.queues.jobs.values()]).toEqual([
      { lane: 'send', teamId: 't1', emailId: 'old' },
      { lane: 'broadcast', teamId: 't2', emailId: 'other-team' },
    ]);
    expect(r.outbox.ids('t1')).toEqual(['at-grace', 'young']);
    expect(r.outbox.ids('t2')).toEqual([]);
    expect(Object.fromEntries(r.observer.relayedByTeam)).toEqual({ t1: 1, t2: 1 });
  });

  it('a scheduled email keeps its due time: delayed by what is left, or at once when it is past', async () => {
    const r = memoryOutboxRelay(NOW);
    r.outbox
      .add('t', { emailId: 'later', acceptedMs: NOW - 60_000, dueMs: NOW + 3_600_000 })
      .add('t', { emailId: 'overdue', acceptedMs: NOW - 60_000, dueMs: NOW - 5_000 });
    await relayOutbox(r.ports, { graceMs: GRACE });
    expect(r.queues.jobs.get('later')).toEqual({
      lane: 'send',
      teamId: 't',
      emailId: 'later',
      delayMs: 3_600_000,
    });
    expect(r.queues.jobs.get('overdue')).toEqual({ lane: 'send', teamId: 't', emailId: 'overdue' });
  });

  it('is idempotent: a second round (or a second scheduler) finds nothing, and one job per email', async () => {
    const r = memoryOutboxRelay(NOW);
    r.outbox.add('t', { emailId: 'e', acceptedMs: NOW - 60_000 });
    await relayOutbox(r.ports, { graceMs: GRACE });
    expect(await relayOutbox(r.ports, { graceMs: GRACE })).toEqual({
      relayed: 0,
      failedTeams: 0,
    });
    // an entry the API's own enqueue already handled (it crashed before removing it): no second job
    r.outbox.add('t', { emailId: 'e', acceptedMs: NOW - 60_000 });
    await relayOutbox(r.ports, { graceMs: GRACE });
    expect(r.queues.jobs.size).toBe(1);
    expect(r.outbox.ids('t')).toEqual([]);
  });

  it('a group entry (the emails of a request due at once) becomes that request’s one group job, and counts its emails', async () => {
    const r = memoryOutboxRelay(NOW);
    r.outbox
      .add('t', { emailId: 'a', emailIds: ['a', 'b', 'c'], acceptedMs: NOW - 60_000 })
      .add('t', { emailId: 'later', acceptedMs: NOW - 60_000, dueMs: NOW + 60_000 });
    expect(await relayOutbox(r.ports, { graceMs: GRACE })).toEqual({
      relayed: 4,
      failedTeams: 0,
    });
    expect([...r.queues.jobs]).toEqual([
      [sendGroupJobId('a'), { lane: 'send', teamId: 't', emailIds: ['a', 'b', 'c'] }],
      ['later', { lane: 'send', teamId: 't', emailId: 'later', delayMs: 60_000 }],
    ]);
    expect(r.outbox.ids('t')).toEqual([]);
    // relayed again (the request's own enqueue had made it): still the one job
    r.outbox.add('t', { emailId: 'a', emailIds: ['a', 'b', 'c'], acceptedMs: NOW - 60_000 });
    await relayOutbox(r.ports, { graceMs: GRACE });
    expect(r.queues.jobs.size).toBe(2);
  });

  it('works through a large outbox in batches, and at most maxPerTeam per round', async () => {
    const r = memoryOutboxRelay(NOW);
    for (let i = 0; i < 25; i++) r.outbox.add('t', { emailId: `e${i}`, acceptedMs: NOW - 60_000 + i });
    expect(await relayOutbox(r.ports, { graceMs: GRACE, batchSize: 10, maxPerTeam: 20 })).toEqual({
      relayed: 20,
      failedTeams: 0,
    });
    expect(r.queues.calls).toEqual([10, 10]);
    expect(r.outbox.ids('t')).toEqual(['e20', 'e21', 'e22', 'e23', 'e24']);
    await relayOutbox(r.ports, { graceMs: GRACE, batchSize: 10 });
    expect(r.queues.jobs.size).toBe(25);
  });

  it('keeps the entries when the enqueue fails, reports the team and goes on with the others', async () => {
    const r = memoryOutboxRelay(NOW);
    r.outbox.add('broken', { emailId: 'b', acceptedMs: NOW - 60_000 });
    r.outbox.add('fine', { emailId: 'f', acceptedMs: NOW - 60_000 });
    r.outbox.failing.add('broken');
    expect(await relayOutbox(r.ports, { graceMs: GRACE })).toEqual({
      relayed: 1,
      failedTeams: 1,
    });
    expect(r.observer.failures.map((f) => f.teamId)).toEqual(['broken']);

    r.outbox.failing.clear();
    r.queues.down = true;
    expect(await relayOutbox(r.ports, { graceMs: GRACE })).toEqual({
      relayed: 0,
      failedTeams: 1,
    });
    expect(r.outbox.ids('broken')).toEqual(['b']); // not removed: its job may not exist
    r.queues.down = false;
    expect(await relayOutbox(r.ports, { graceMs: GRACE })).toEqual({
      relayed: 1,
      failedTeams: 0,
    });
    expect([...r.queues.jobs.keys()].sort()).toEqual(['b', 'f']);
  });
});

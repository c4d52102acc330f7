import { describe, expect, it } from 'vitest';
import type { EmailEvent } from '@petrel/contracts';
import { acceptedEmail } from '@petrel/testing';
import { commitAcceptance, type AcceptCommitPorts } from './commit-acceptance.js';
import type { AcceptedEmail } from './ports.js';

const NOW = Date.parse('2026-03-01T10:00:00Z');

function accepted(id: string, delayMs = 0): AcceptedEmail {
  return acceptedEmail(id, { id: `ev-${id}` } as unknown as EmailEvent, delayMs);
}

/** Ports that log each write in order; `fail` makes one step throw. */
function recording(fail?: 'stage' | 'enqueue' | 'clear') {
  const log: string[] = [];
  const calls: Record<string, unknown[]> = {};
  const step =
    (name: 'stage' | 'enqueue' | 'clear') =>
    async (...args: unknown[]) => {
      log.push(name);
      calls[name] = args;
      if (fail === name) throw new Error(`${name} failed`);
    };
  const ports: AcceptCommitPorts = {
    clock: { now: () => NOW },
    stage: step('stage'),
    enqueue: step('enqueue'),
    clear: step('clear'),
  };
  return { ports, log, calls };
}

describe('commitAcceptance: stage → enqueue → clear', () => {
  it('writes the records, then the jobs, then clears the outbox with the stored response', async () => {
    const { ports, log, calls } = recording();
    const completion = { token: 'k', status: 200, body: '{"data":[]}' };
    await commitAcceptance(
      { teamId: 't1', emails: [accepted('e1'), accepted('e2', 60_000)], completion },
      ports,
    );

    expect(log).toEqual(['stage', 'enqueue', 'clear']);
    const [teamId, staged, createdAt] = calls.stage!;
    expect(teamId).toBe('t1');
    expect((createdAt as Date).getTime()).toBe(NOW);
    expect(
      (staged as { id: string; lane: string; dueMs: number }[]).map((e) => [e.id, e.lane, e.dueMs]),
    ).toEqual([
      ['e1', 'send', 0],
      ['e2', 'send', NOW + 60_000],
    ]);
    expect(calls.enqueue).toEqual([
      'send',
      [
        { teamId: 't1', emailId: 'e1' },
        { teamId: 't1', emailId: 'e2', delayMs: 60_000 },
      ],
    ]);
    expect(calls.clear).toEqual([
      't1',
      [
        { lane: 'send', emailId: 'e1', dueMs: 0 },
        { lane: 'send', emailId: 'e2', dueMs: NOW + 60_000 },
      ],
      completion,
    ]);
  });

  it('the emails due at once share one group job and one outbox entry; a scheduled one keeps its own', async () => {
    const { ports, calls } = recording();
    await commitAcceptance(
      {
        teamId: 't1',
        emails: [accepted('e1'), accepted('e2', 60_000), accepted('e3'), accepted('e4')],
        completion: undefined,
      },
      ports,
    );
    const [, staged, , outbox] = calls.stage!;
    expect((staged as { id: string; group?: string }[]).map((e) => [e.id, e.group])).toEqual([
      ['e1', 'e1'],
      ['e2', undefined],
      ['e3', 'e1'],
      ['e4', 'e1'],
    ]);
    const entries = [
      { lane: 'send', emailId: 'e1', dueMs: 0, emailIds: ['e1', 'e3', 'e4'] },
      { lane: 'send', emailId: 'e2', dueMs: NOW + 60_000 },
    ];
    expect(outbox).toEqual(entries);
    expect(calls.enqueue).toEqual([
      'send',
      [
        { teamId: 't1', emailIds: ['e1', 'e3', 'e4'] },
        { teamId: 't1', emailId: 'e2', delayMs: 60_000 },
      ],
    ]);
    expect(calls.clear).toEqual(['t1', entries, undefined]);
  });

  it('a failed enqueue leaves the outbox entries (the relay makes the jobs) and stores no response', async () => {
    const { ports, log } = recording('enqueue');
    await expect(
      commitAcceptance({ teamId: 't1', emails: [accepted('e1')], completion: undefined }, ports),
    ).rejects.toThrow('enqueue failed');
    expect(log).toEqual(['stage', 'enqueue']);
  });

  it('a failed stage enqueues nothing', async () => {
    const { ports, log } = recording('stage');
    await expect(
      commitAcceptance({ teamId: 't1', emails: [accepted('e1')], completion: undefined }, ports),
    ).rejects.toThrow('stage failed');
    expect(log).toEqual(['stage']);
  });
});

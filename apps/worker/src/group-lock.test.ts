import { describe, expect, it } from 'vitest';
import type { SendQueueJob } from '@petrel/contracts';
import type { Job } from '@petrel/queue';
import { groupLock } from './group-lock.js';

const job = { id: 'grp_a' } as Job<SendQueueJob>;

/**
 * A group's lock over reads whose answers the test gives, one per read, in order; `tokens` are
 * the tokens read with.
 */
function lockReads() {
  const pending: { answer: (held: boolean) => void; fail: (err: Error) => void }[] = [];
  const tokens: (string | undefined)[] = [];
  let issued!: () => void;
  let nextIssued = new Promise<void>((resolve) => (issued = resolve));
  const lock = groupLock(job, 'token-1', (_job, token) => {
    tokens.push(token);
    const read = new Promise<boolean>((answer, fail) => pending.push({ answer, fail }));
    issued();
    nextIssued = new Promise<void>((resolve) => (issued = resolve));
    return read;
  });
  return {
    lock,
    tokens,
    pending,
    /** Resolves once the next read has gone out. */
    issued: () => nextIssued,
  };
}

describe('groupLock', () => {
  it('emails that get their slot in the same turn wait for one read, issued after the last of them asked', async () => {
    const { lock, ...reads } = lockReads();
    const checks = [lock.held(), lock.held(), lock.held()];
    // nothing is read while the turn in which they asked goes on
    expect(reads.tokens).toEqual([]);
    await reads.issued();
    expect(reads.tokens).toEqual(['token-1']);
    reads.pending[0]!.answer(true);
    expect(await Promise.all(checks)).toEqual([true, true, true]);
    expect(lock.lost).toBe(false);
  });

  it('an email that asks once the read went out waits for a read of its own: its check is never older than its slot', async () => {
    const { lock, ...reads } = lockReads();
    const first = lock.held();
    await reads.issued();
    const second = lock.held();
    // the first read says the lock is held: that answers the first email only
    reads.pending[0]!.answer(true);
    expect(await first).toBe(true);
    let secondAnswered = false;
    void second.then(() => (secondAnswered = true));
    await reads.issued();
    expect(secondAnswered).toBe(false);
    expect(reads.tokens).toHaveLength(2);
    // the lock was lost between the two reads: the second email does not start
    reads.pending[1]!.answer(false);
    expect(await second).toBe(false);
    expect(lock.lost).toBe(true);
  });

  it('once a read finds the lock gone, no later check reads or passes', async () => {
    const { lock, ...reads } = lockReads();
    const check = lock.held();
    await reads.issued();
    reads.pending[0]!.answer(false);
    expect(await check).toBe(false);
    expect(await lock.held()).toBe(false);
    expect(reads.tokens).toHaveLength(1);
  });

  it('a read that fails (Redis unreachable) fails the check of every email that waited for it, and the next one reads again', async () => {
    const { lock, ...reads } = lockReads();
    const checks = [lock.held(), lock.held()];
    await reads.issued();
    reads.pending[0]!.fail(new Error('connection lost'));
    for (const check of checks) await expect(check).rejects.toThrow('connection lost');
    expect(lock.lost).toBe(false);
    const again = lock.held();
    await reads.issued();
    reads.pending[1]!.answer(true);
    expect(await again).toBe(true);
  });
});

/**
 * The attempts' deadlines as pure logic (fake timers, an injected clock): each attempt is aborted
 * at its deadline and not before, an attempt that ended is never aborted nor holds the ones behind
 * it, and however many attempts are in flight one timer serves them all.
 */
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersEachTest } from '@petrel/testing';
import { AttemptDeadlines } from './attempt-deadlines.js';

fakeTimersEachTest();

describe('AttemptDeadlines', () => {
  it('aborts an attempt at its deadline and not before, once, with the timeout in the reason', () => {
    const deadlines = new AttemptDeadlines(1_000, { monotonicMs: () => Date.now() });
    const d = deadlines.start();
    const heard = vi.fn();
    d.once('abort', heard);
    vi.advanceTimersByTime(999);
    expect(d.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.aborted).toBe(true);
    expect(d.reason?.message).toBe('timed out after 1000 ms');
    expect(heard).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5_000);
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it('never aborts an attempt that ended; the ones started after it still expire on time', () => {
    const deadlines = new AttemptDeadlines(1_000, { monotonicMs: () => Date.now() });
    const first = deadlines.start();
    vi.advanceTimersByTime(300);
    const second = deadlines.start();
    vi.advanceTimersByTime(300);
    const third = deadlines.start();
    second.end();
    first.end();
    vi.advanceTimersByTime(999); // at 1,599 ms: past the first two deadlines, 1 ms before the third's
    expect([first.aborted, second.aborted, third.aborted]).toEqual([false, false, false]);
    vi.advanceTimersByTime(1);
    expect([first.aborted, second.aborted, third.aborted]).toEqual([false, false, true]);
  });

  it('arms its timer again when it fires before the first deadline is due (no early abort)', () => {
    let nowMs = 0;
    const deadlines = new AttemptDeadlines(100, { monotonicMs: () => nowMs });
    const d = deadlines.start();
    // the timer fires at 100 ms by the timers' clock while the deadlines' clock reads 99.5 ms
    nowMs = 99.5;
    vi.advanceTimersByTime(100);
    expect(d.aborted).toBe(false);
    nowMs = 100;
    vi.advanceTimersByTime(1);
    expect(d.aborted).toBe(true);
  });

  it('serves any number of attempts in flight with one timer, and none once closed', () => {
    const deadlines = new AttemptDeadlines(1_000, { monotonicMs: () => Date.now() });
    const all = Array.from({ length: 50 }, () => deadlines.start());
    expect(vi.getTimerCount()).toBe(1);
    for (const d of all.slice(0, 49)) d.end();
    all[0]!.end(); // a second end changes nothing
    vi.advanceTimersByTime(1_000);
    expect(all.map((d) => d.aborted).filter(Boolean)).toHaveLength(1);
    expect(all[49]!.aborted).toBe(true);
    const late = deadlines.start();
    deadlines.close();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2_000);
    expect(late.aborted).toBe(false);
  });
});

/** The soft-bounce streaks (core deliver/soft-bounces.ts) in memory, as the store's script keeps them. */
import { mailboxKey, type SoftBounceStreak, type SoftBounceStreaks } from '@petrel/core';

export class MemorySoftBounceStreaks implements SoftBounceStreaks {
  private readonly streaks = new Map<string, SoftBounceStreak & { last: string; untilMs: number }>();

  async record(teamId: string, address: string, emailId: string, nowMs: number, ttlMs: number) {
    const key = `${teamId}:${mailboxKey(address)}`;
    let s = this.streaks.get(key);
    if (s && s.untilMs <= nowMs) s = undefined;
    if (!s) s = { emails: 0, firstMs: nowMs, last: '', untilMs: 0 };
    if (s.last !== emailId) s = { ...s, emails: s.emails + 1, last: emailId };
    s.untilMs = nowMs + ttlMs;
    this.streaks.set(key, s);
    return { emails: s.emails, firstMs: s.firstMs };
  }

  async reset(teamId: string, addresses: readonly string[]) {
    for (const a of addresses) this.streaks.delete(`${teamId}:${mailboxKey(a)}`);
  }
}

/**
 * The soft-bounce streaks of core's rule (deliver/soft-bounces.ts): one hash per address in its
 * team's slot, counted by one script (`petrelRecordSoftBounce`: once per email, atomic across
 * workers) and ended by one DEL of the addresses' keys (one team, one slot).
 */
import { mailboxKey, type SoftBounceStreak, type SoftBounceStreaks } from '@petrel/core';
import { TeamStore } from './team-store.js';

export class SoftBounceStore extends TeamStore implements SoftBounceStreaks {
  async record(
    teamId: string,
    address: string,
    emailId: string,
    nowMs: number,
    ttlMs: number,
  ): Promise<SoftBounceStreak> {
    const key = this.keys.softBounceStreak(teamId, mailboxKey(address));
    const [emails, firstMs] = await this.redis.petrelRecordSoftBounce(key, emailId, nowMs, ttlMs);
    return { emails, firstMs };
  }

  async reset(teamId: string, addresses: readonly string[]): Promise<void> {
    if (addresses.length === 0) return;
    await this.redis.del(...addresses.map((a) => this.keys.softBounceStreak(teamId, mailboxKey(a))));
  }
}

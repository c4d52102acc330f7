/**
 * Dashboard sessions (the rules are in core: dashboard/session.ts). One hash per session under
 * its team, so a session and the key it was made from share the team's slot and one pipeline
 * reads both: a session whose key is revoked reads as absent. The hash expires at the session's
 * end (PEXPIREAT), so nothing has to sweep them.
 */
import type { DashboardSession, DashboardSessionRepository } from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { execAll, transaction } from './scripts.js';
import { TeamStore } from './team-store.js';

export class DashboardSessionsStore extends TeamStore implements DashboardSessionRepository {
  constructor(redis: RedisClient, keys: Keys) {
    super(redis, keys);
  }

  async create(s: DashboardSession): Promise<void> {
    const key = this.keys.dashboardSession(s.teamId, s.id);
    await execAll(
      transaction(this.redis, 'DashboardSessionsStore.create')
        .hset(key, {
          key_id: s.keyId,
          csrf: s.csrfToken,
          created_ms: String(s.createdMs),
          expires_ms: String(s.expiresMs),
        })
        .pexpireat(key, s.expiresMs),
    );
  }

  async get(teamId: string, sessionId: string): Promise<DashboardSession | null> {
    const h = await this.redis.hgetall(this.keys.dashboardSession(teamId, sessionId));
    if (!h.key_id || !h.csrf) return null;
    const name = await this.keyName(teamId, h.key_id);
    if (name === null) return null;
    return {
      id: sessionId,
      teamId,
      keyId: h.key_id,
      keyName: name,
      csrfToken: h.csrf,
      createdMs: Number(h.created_ms),
      expiresMs: Number(h.expires_ms),
    };
  }

  async delete(teamId: string, sessionId: string): Promise<void> {
    await this.redis.del(this.keys.dashboardSession(teamId, sessionId));
  }

  async keyName(teamId: string, keyId: string): Promise<string | null> {
    return this.redis.hget(this.keys.apiKey(teamId, keyId), 'name');
  }
}

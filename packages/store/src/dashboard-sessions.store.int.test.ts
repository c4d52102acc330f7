import { describe, expect, it } from 'vitest';
import { ApiKeysStore } from './api-keys.store.js';
import { DashboardSessionsStore } from './dashboard-sessions.store.js';
import { useStoreRedis } from './redis.fixture.js';

const fx = useStoreRedis('dash-sessions');

describe('DashboardSessionsStore', () => {
  it('stores a session until its end, reads the key name live, and forgets it on delete or revoke', async () => {
    const store = new DashboardSessionsStore(fx.redis, fx.keys);
    const apiKeys = new ApiKeysStore(fx.redis, fx.keys);
    const team = await apiKeys.createTeam('t');
    const key = await apiKeys.create(team, { name: 'Ops' });
    const now = Date.now();
    const session = {
      id: 'sid-1',
      teamId: team,
      keyId: key.id,
      keyName: 'Ops',
      csrfToken: 'csrf-1',
      createdMs: now,
      expiresMs: now + 60_000,
    };
    await store.create(session);
    expect(await store.get(team, 'sid-1')).toEqual(session);
    const ttl = await fx.redis.pttl(fx.keys.dashboardSession(team, 'sid-1'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);

    await apiKeys.rename(team, key.id, 'Renamed');
    expect((await store.get(team, 'sid-1'))?.keyName).toBe('Renamed');
    expect(await store.get('other-team', 'sid-1')).toBeNull();

    await store.delete(team, 'sid-1');
    expect(await store.get(team, 'sid-1')).toBeNull();

    await store.create({ ...session, id: 'sid-2' });
    await apiKeys.revoke(team, key.id);
    expect(await store.get(team, 'sid-2')).toBeNull();
    expect(await store.keyName(team, key.id)).toBeNull();
  });
});

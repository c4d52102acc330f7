import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { useStoreRedis } from './redis.fixture.js';
import { ApiKeysStore } from './api-keys.store.js';

const fx = useStoreRedis('api-keys');

describe('ApiKeysStore', () => {
  it('authenticates a key, records its last use, renames and revokes it', async () => {
    const store = new ApiKeysStore(fx.redis, fx.keys);
    const teamId = await store.createTeam('acme');
    expect(await store.teamIds()).toContain(teamId);
    const { id, token } = await store.create(teamId, { name: 'ci', permission: 'sending_access' });

    expect(await store.authenticate(token)).toEqual({ teamId, keyId: id, permission: 'sending_access' });
    const used = await waitUntil(async () => (await store.get(teamId, id))?.last_used_at, {
      message: 'last_used_at',
    });
    expect(Date.parse(used)).not.toBeNaN();

    expect(await store.rename(teamId, id, 'deploys')).toBe(true);
    expect((await store.get(teamId, id))?.name).toBe('deploys');
    expect(await store.rename(teamId, 'no-such-key', 'x')).toBe(false);
    expect(await fx.redis.exists(fx.keys.apiKey(teamId, 'no-such-key'))).toBe(0);

    expect(await store.revoke(teamId, id)).toBe(true);
    expect(await store.authenticate(token)).toBeNull();
  });

  it('a crash between the two steps of a write leaves nothing a reader trips on', async () => {
    const store = new ApiKeysStore(fx.redis, fx.keys);
    const teamId = await store.createTeam('crashy');
    // create's first step only (the team's record and listing entry; no token index entry yet)
    const { id, token } = await store.create(teamId, { name: 'half' });
    await fx.redis.hdel(
      fx.keys.apiKeyByHash(),
      (await fx.redis.hget(fx.keys.apiKey(teamId, id), 'token_hash'))!,
    );
    expect(await store.authenticate(token)).toBeNull(); // an unreachable token, never a dangling one
    expect((await store.list(teamId)).map((k) => k.id)).toEqual([id]);
    expect(await store.revoke(teamId, id)).toBe(true); // revoking finishes the job
    expect(await store.list(teamId)).toEqual([]);
    // createTeam's first step only: a team record the teams set does not name is invisible
    await fx.redis.hset(fx.keys.team('orphan'), { id: 'orphan', name: 'orphan', created_at: '' });
    expect(await store.teamIds()).not.toContain('orphan');
    expect((await store.listTeams()).map((t) => t.id)).not.toContain('orphan');
  });

  it('refuses an unknown token', async () => {
    expect(await new ApiKeysStore(fx.redis, fx.keys).authenticate('re_unknown')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { useStoreRedis } from './redis.fixture.js';
import { ApiKeysStore } from './api-keys.store.js';
import { TeamSettingsStore } from './team-settings.store.js';

const fx = useStoreRedis('team-settings');

describe('TeamSettingsStore', () => {
  it('tracking is off by default; set switches one at a time; unknown teams are refused', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('acme');
    const store = new TeamSettingsStore(fx.redis, fx.keys, { cacheMs: 0 });
    expect(await store.get(team)).toEqual({ open: false, click: false });
    expect(await store.setTracking(team, { open: true })).toEqual({ open: true, click: false });
    expect(await store.setTracking(team, { click: true })).toEqual({ open: true, click: true });
    expect(await store.setTracking(team, { open: false })).toEqual({ open: false, click: true });
    expect(await store.setTracking(team, {})).toEqual({ open: false, click: true });
    // the team record keeps its other fields
    expect(await fx.redis.hget(fx.keys.team(team), 'name')).toBe('acme');

    expect(await store.setTracking('no-such-team', { open: true })).toBeNull();
    expect(await store.setTracking('no-such-team', {})).toBeNull();
    expect(await fx.redis.exists(fx.keys.team('no-such-team'))).toBe(0);
    expect(await store.get('no-such-team')).toEqual({ open: false, click: false });
  });

  it('a reader caches for cacheMs: a change shows there once the entry expires', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('cached');
    const writer = new TeamSettingsStore(fx.redis, fx.keys, { cacheMs: 0 });
    // one reader that cannot expire during the test (it shows the cache is read), one that
    // expires soon (it shows the change arrives once the entry is gone, not before)
    const stale = new TeamSettingsStore(fx.redis, fx.keys, { cacheMs: 60_000 });
    const reader = new TeamSettingsStore(fx.redis, fx.keys, { cacheMs: 200 });
    expect(await stale.get(team)).toEqual({ open: false, click: false });
    const cachedFrom = Date.now(); // the entry is stored after this, so it lives until after +200 ms
    expect(await reader.get(team)).toEqual({ open: false, click: false });
    await writer.setTracking(team, { open: true, click: true });
    expect(await stale.get(team)).toEqual({ open: false, click: false });
    await waitUntil(async () => (await reader.get(team)).open, { timeoutMs: 5_000, message: 'the change' });
    // not before the entry expired (lru-cache may round its clock by 1 ms; Date.now() truncates)
    expect(Date.now() - cachedFrom).toBeGreaterThanOrEqual(200 - 5);
    expect(await reader.get(team)).toEqual({ open: true, click: true });
  });
});

import { describe, expect, it } from 'vitest';
import { formatOAuthToken, newId } from '@petrel/core';
import { OAuthClientsStore, OAuthGrantsStore } from './oauth.store.js';
import { useStoreRedis } from './redis.fixture.js';

const fx = useStoreRedis('oauth');

const client = (id: string) => ({
  id,
  name: `App ${id}`,
  logo_uri: 'https://app.example/logo.png',
  redirect_uris: ['https://app.example/cb', 'http://127.0.0.1:9/cb'],
  confidential: true,
  created_at: new Date().toISOString(),
});

describe('OAuthClientsStore', () => {
  it('creates, reads with the secret hash, lists and deletes clients', async () => {
    const store = new OAuthClientsStore(fx.redis, fx.keys);
    const a = client(newId());
    await store.create(a, 'ab'.repeat(32));
    await store.create({ ...client(newId()), logo_uri: null, confidential: false }, null);
    expect(await store.get(a.id)).toEqual({ ...a, secretHash: 'ab'.repeat(32) });
    const listed = await store.list();
    expect(listed.map((c) => c.id)).toContain(a.id);
    expect(listed.find((c) => c.id !== a.id)).toMatchObject({ logo_uri: null, confidential: false });
    expect(await store.delete(a.id)).toBe(true);
    expect(await store.get(a.id)).toBeNull();
    expect(await store.delete(a.id)).toBe(false);
  });
});

describe('OAuthGrantsStore', () => {
  it('keeps one active grant per team and client, widening its scopes; a new one after revocation', async () => {
    const store = new OAuthGrantsStore(fx.redis, fx.keys);
    const team = newId();
    const nowMs = Date.now();
    const first = await store.approve(team, {
      clientId: 'c1',
      scopes: ['sending_access'],
      newGrantId: 'g1',
      nowMs,
    });
    expect(first).toMatchObject({ id: 'g1', client_id: 'c1', scopes: ['sending_access'], revoked_at: null });
    const again = await store.approve(team, {
      clientId: 'c1',
      scopes: ['full_access'],
      newGrantId: 'g2',
      nowMs,
    });
    expect(again).toMatchObject({ id: 'g1', scopes: ['full_access', 'sending_access'] });
    expect(await store.get(team, 'g2')).toBeNull();

    const revoked = await store.revoke(team, 'g1', 'revoked_by_team', nowMs);
    expect(revoked).toMatchObject({
      id: 'g1',
      revoked_at: new Date(nowMs).toISOString(),
      revoked_reason: 'revoked_by_team',
    });
    // revoking again changes nothing; another team's id is unknown
    const later = nowMs + 5000;
    expect((await store.revoke(team, 'g1', 'x', later))?.revoked_at).toBe(new Date(nowMs).toISOString());
    expect(await store.revoke(newId(), 'g1', 'x', later)).toBeNull();

    const fresh = await store.approve(team, {
      clientId: 'c1',
      scopes: ['sending_access'],
      newGrantId: 'g3',
      nowMs: later,
    });
    expect(fresh).toMatchObject({ id: 'g3', scopes: ['sending_access'], revoked_at: null });
    expect((await store.list(team)).map((g) => g.id)).toEqual(['g3', 'g1']);
  });

  it('concurrent approvals of one client end in one grant', async () => {
    const store = new OAuthGrantsStore(fx.redis, fx.keys);
    const team = newId();
    const grants = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.approve(team, {
          clientId: 'c',
          scopes: ['sending_access'],
          newGrantId: `g${i}`,
          nowMs: Date.now(),
        }),
      ),
    );
    expect(new Set(grants.map((g) => g.id)).size).toBe(1);
    expect(await store.list(team)).toHaveLength(1);
  });

  it('a code is taken once; a token reads until its grant is revoked or it expires', async () => {
    const store = new OAuthGrantsStore(fx.redis, fx.keys);
    const team = newId();
    const grant = await store.approve(team, {
      clientId: 'c',
      scopes: ['full_access'],
      newGrantId: newId(),
      nowMs: Date.now(),
    });
    const code = {
      client_id: 'c',
      team_id: team,
      grant_id: grant.id,
      scopes: ['full_access'],
      redirect_uri: 'https://app.example/cb',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      expires_ms: Date.now() + 60_000,
    };
    await store.saveCode('the-code', code);
    expect(await store.getCode('the-code')).toEqual(code);
    const taken = await Promise.all([store.takeCode('the-code'), store.takeCode('the-code')]);
    expect(taken.sort()).toEqual(['replayed', 'taken']);
    // kept until it expires, marked: a replay is recognised
    expect(await store.getCode('the-code')).toEqual({ ...code, used: true });
    expect(await store.takeCode('never-issued')).toBe('gone');
    expect(await fx.redis.exists(fx.keys.oauthCode('never-issued'))).toBe(0);

    const access = formatOAuthToken('access', team, grant.id, 'secret1');
    const expired = formatOAuthToken('access', team, grant.id, 'secret2');
    const record = {
      kind: 'access' as const,
      team_id: team,
      grant_id: grant.id,
      client_id: 'c',
      scopes: ['full_access'],
      expires_ms: Date.now() + 60_000,
    };
    await store.saveTokens(team, [
      { token: access, record },
      { token: expired, record: { ...record, expires_ms: Date.now() - 1 } },
    ]);
    expect(await store.readToken(team, grant.id, access)).toEqual(record);
    expect(await store.readToken(team, grant.id, expired)).toBeNull();
    // the token's record is under the grant it names: another grant id finds nothing
    expect(await store.readToken(team, 'other-grant', access)).toBeNull();

    const refresh = formatOAuthToken('refresh', team, grant.id, 'secret3');
    await store.saveTokens(team, [{ token: refresh, record: { ...record, kind: 'refresh' } }]);
    expect(await store.takeToken(team, refresh)).toBe('taken');
    expect(await store.takeToken(team, refresh)).toBe('replayed');
    expect(await store.readToken(team, grant.id, refresh)).toMatchObject({ kind: 'refresh', used: true });

    await store.revoke(team, grant.id, 'revoked_by_team', Date.now());
    expect(await store.readToken(team, grant.id, access)).toBeNull();
  });
});

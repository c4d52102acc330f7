import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryOAuthClients, MemoryOAuthGrants } from '@petrel/testing';
import { formatOAuthToken } from './oauth-rules.js';
import { hashOAuthSecret } from './oauth-grants.js';
import {
  GRANT_REVOKED_BY_CLIENT,
  GRANT_REVOKED_CODE_REUSED,
  GRANT_REVOKED_REFRESH_REUSED,
  admitOneTime,
  authenticateOAuthAccess,
  authenticateOAuthClient,
  revokeOAuthTokenOfClient,
  scopesWithinGrant,
  standingGrant,
  takeOneTime,
} from './oauth-credentials.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const TEAM = 'team-1';
const client = (id: string, confidential: boolean) => ({
  id,
  name: `App ${id}`,
  logo_uri: null,
  redirect_uris: ['https://app.example/cb'],
  confidential,
  created_at: new Date(NOW).toISOString(),
});

let clients: MemoryOAuthClients;
let grants: MemoryOAuthGrants;
let ports: {
  grants: MemoryOAuthGrants;
  tokens: MemoryOAuthGrants;
  clients: MemoryOAuthClients;
  clock: { now(): number };
};
let owner: { teamId: string; grantId: string };

/** A stored token of the grant `owner` names, issued to `clientId`. */
function issue(
  kind: 'access' | 'refresh',
  secret: string,
  clientId = 'public-app',
  scopes = ['sending_access'],
) {
  const token = formatOAuthToken(kind, owner.teamId, owner.grantId, secret);
  grants.tokens.set(token, {
    kind,
    team_id: owner.teamId,
    grant_id: owner.grantId,
    client_id: clientId,
    scopes,
    expires_ms: NOW + 60_000,
  });
  return token;
}

beforeEach(async () => {
  clients = new MemoryOAuthClients();
  grants = new MemoryOAuthGrants({ now: () => NOW });
  ports = { grants, tokens: grants, clients, clock: { now: () => NOW } };
  await clients.create(client('public-app', false), null);
  await clients.create(client('server-app', true), hashOAuthSecret('s3cret'));
  const grant = await grants.approve(TEAM, {
    clientId: 'public-app',
    scopes: ['sending_access'],
    newGrantId: 'grant-1',
    nowMs: NOW,
  });
  owner = { teamId: TEAM, grantId: grant.id };
});

describe('a grant stands until revoked', () => {
  it('scopes within the grant pass; wider or none, or a revoked grant, do not', async () => {
    const grant = (await standingGrant(owner, ports))!;
    expect(scopesWithinGrant(grant, ['sending_access'])).toEqual(['sending_access']);
    expect(scopesWithinGrant(grant, ['sending_access', 'full_access'])).toBeNull();
    expect(scopesWithinGrant(grant, [])).toBeNull();
    expect(await standingGrant({ teamId: 'team-2', grantId: owner.grantId }, ports)).toBeNull();
    await grants.revoke(TEAM, owner.grantId, 'revoked_by_team', NOW);
    expect(await standingGrant(owner, ports)).toBeNull();
  });
});

describe('one-time credentials', () => {
  it('a fresh one is admitted and taken once; the grant stands', async () => {
    const refresh = issue('refresh', 'r1');
    expect(await admitOneTime('refresh_token', owner, undefined, ports)).toBe(true);
    expect(await takeOneTime('refresh_token', owner, () => grants.take(refresh), ports)).toBe(true);
    expect(await standingGrant(owner, ports)).not.toBeNull();
  });

  it.each([
    ['authorization_code', GRANT_REVOKED_CODE_REUSED],
    ['refresh_token', GRANT_REVOKED_REFRESH_REUSED],
  ] as const)('a %s presented again is refused and revokes the grant (%s)', async (kind, reason) => {
    expect(await admitOneTime(kind, owner, true, ports)).toBe(false);
    expect(await grants.get(TEAM, owner.grantId)).toMatchObject({ revoked_reason: reason });
  });

  it('the second of two exchanges is a replay: it revokes the grant, with every token of it', async () => {
    const access = issue('access', 'a1');
    const refresh = issue('refresh', 'r1');
    const both = await Promise.all([
      takeOneTime('refresh_token', owner, () => grants.take(refresh), ports),
      takeOneTime('refresh_token', owner, () => grants.take(refresh), ports),
    ]);
    expect(both.sort()).toEqual([false, true]);
    expect(await grants.get(TEAM, owner.grantId)).toMatchObject({
      revoked_reason: GRANT_REVOKED_REFRESH_REUSED,
    });
    expect(await authenticateOAuthAccess(access, ports)).toBeNull();
  });

  it('a credential that is gone (expired, never issued) is refused without revoking anything', async () => {
    expect(await takeOneTime('authorization_code', owner, () => grants.take('never-issued'), ports)).toBe(
      false,
    );
    expect(await standingGrant(owner, ports)).not.toBeNull();
  });
});

describe('client authentication', () => {
  it('a confidential client needs its secret; a public one names itself; an unknown one is refused', async () => {
    expect(await authenticateOAuthClient('server-app', 's3cret', clients)).toMatchObject({
      id: 'server-app',
    });
    for (const secret of [undefined, null, '', 'wrong'])
      expect(await authenticateOAuthClient('server-app', secret, clients)).toBeNull();
    expect(await authenticateOAuthClient('public-app', undefined, clients)).toMatchObject({
      id: 'public-app',
    });
    expect(await authenticateOAuthClient('nope', 's3cret', clients)).toBeNull();
    expect(await authenticateOAuthClient('x'.repeat(129), undefined, clients)).toBeNull();
  });
});

describe('access tokens as API credentials', () => {
  it('stand for their scopes while the grant stands and the client is registered', async () => {
    const access = issue('access', 'a1', 'public-app', ['full_access']);
    expect(await authenticateOAuthAccess(access, ports)).toEqual({
      teamId: TEAM,
      keyId: owner.grantId,
      permission: 'full_access',
    });
    // a refresh token is not an access token, and an altered token finds nothing
    expect(await authenticateOAuthAccess(issue('refresh', 'r1'), ports)).toBeNull();
    expect(await authenticateOAuthAccess(`${access}x`, ports)).toBeNull();
    // the app is deleted: its tokens stop at once, not when they expire
    await clients.delete('public-app');
    expect(await authenticateOAuthAccess(access, ports)).toBeNull();
  });
});

describe('RFC 7009 revocation by the client', () => {
  it.each(['access', 'refresh'] as const)(
    'an %s token revokes its grant, so every token of it',
    async (kind) => {
      const access = issue('access', 'a1');
      const token = kind === 'access' ? access : issue('refresh', 'r1');
      expect(await revokeOAuthTokenOfClient({ token, clientId: 'public-app' }, ports)).toBe('revoked');
      expect(await grants.get(TEAM, owner.grantId)).toMatchObject({
        revoked_reason: GRANT_REVOKED_BY_CLIENT,
      });
      expect(await authenticateOAuthAccess(access, ports)).toBeNull();
      // again: the token no longer stands, which is no error
      expect(await revokeOAuthTokenOfClient({ token, clientId: 'public-app' }, ports)).toBe('unknown');
    },
  );

  it('an unknown token is no error; another client may not revoke the token', async () => {
    for (const token of ['', 'not-a-token', formatOAuthToken('access', TEAM, owner.grantId, 'never')])
      expect(await revokeOAuthTokenOfClient({ token, clientId: 'public-app' }, ports)).toBe('unknown');
    const access = issue('access', 'a1');
    expect(await revokeOAuthTokenOfClient({ token: access, clientId: 'server-app' }, ports)).toBe(
      'other_client',
    );
    expect(await standingGrant(owner, ports)).not.toBeNull();
  });
});

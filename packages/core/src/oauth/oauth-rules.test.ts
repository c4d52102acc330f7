import { describe, expect, it } from 'vitest';
import {
  formatOAuthToken,
  parseOAuthToken,
  parseScopes,
  permissionOfScopes,
  redirectUriProblem,
  unionScopes,
} from './oauth-rules.js';
import { authorizationRedirect, checkAuthorizationRequest, type OAuthClientRecord } from './oauth-grants.js';

describe('scopes', () => {
  it.each([
    ['full_access', ['full_access']],
    ['sending_access full_access sending_access', ['full_access', 'sending_access']],
    ['  sending_access ', ['sending_access']],
  ])('%j → %j', (raw, scopes) => {
    expect(parseScopes(raw)).toEqual({ scopes });
  });

  it.each([[undefined], [''], ['   '], ['emails:send'], ['full_access admin']])('refuses %j', (raw) => {
    expect(parseScopes(raw)).toEqual({ error: expect.stringMatching(/^scope: /) });
  });

  it('maps scopes to the API key permissions', () => {
    expect(permissionOfScopes(['sending_access', 'full_access'])).toBe('full_access');
    expect(permissionOfScopes(['sending_access'])).toBe('sending_access');
    expect(permissionOfScopes([])).toBeNull();
    expect(unionScopes(['sending_access'], ['full_access'])).toEqual(['full_access', 'sending_access']);
  });
});

describe('tokens', () => {
  it('name their team and grant; any other shape is not a token', () => {
    const token = formatOAuthToken('access', 'team-1', 'grant-1', 'S3cret_-x');
    expect(parseOAuthToken(token, 'access')).toEqual({ teamId: 'team-1', grantId: 'grant-1' });
    expect(parseOAuthToken(token, 'refresh')).toBeNull();
    for (const bad of [
      'pto_a.b',
      'pto_a.b.c.d',
      'pto_a{x}.b.c',
      're_abc',
      'pto_..c',
      `pto_a.b.${'x'.repeat(300)}`,
    ])
      expect(parseOAuthToken(bad, 'access'), bad).toBeNull();
  });
});

describe('redirect URIs', () => {
  it.each([
    ['https://app.example/cb', null],
    ['http://127.0.0.1:8123/cb', null],
    ['http://localhost/cb', null],
    ['http://[::1]:9/cb', null],
    ['http://app.example/cb', /https/],
    ['https://app.example/cb#x', /fragment/],
    ['/relative', /absolute/],
    ['javascript:alert(1)', /https/],
  ])('%s', (uri, problem) => {
    const found = redirectUriProblem(uri);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });

  it('adds parameters and keeps the query the client registered', () => {
    expect(authorizationRedirect('https://a.example/cb?x=1', { code: 'c', state: undefined })).toBe(
      'https://a.example/cb?x=1&code=c',
    );
  });
});

describe('checkAuthorizationRequest', () => {
  const client: OAuthClientRecord = {
    id: 'c1',
    name: 'App',
    logo_uri: null,
    redirect_uris: ['https://app.example/cb'],
    confidential: false,
    created_at: '2026-01-01T00:00:00.000Z',
  };
  const clients = { get: async (id: string) => (id === 'c1' ? { ...client, secretHash: null } : null) };
  const good = {
    client_id: 'c1',
    redirect_uri: 'https://app.example/cb',
    response_type: 'code',
    scope: 'sending_access',
    state: 's1',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };

  it('accepts a complete request', async () => {
    expect(await checkAuthorizationRequest(good, clients)).toMatchObject({
      ok: true,
      request: { scopes: ['sending_access'], state: 's1', redirectUri: good.redirect_uri },
    });
  });

  it('never redirects for an unknown client or an unregistered redirect URI', async () => {
    for (const q of [
      { ...good, client_id: 'nope' },
      { ...good, client_id: undefined },
      { ...good, redirect_uri: 'https://evil.example/cb' },
      { ...good, redirect_uri: 'https://app.example/cb/' },
    ])
      expect(await checkAuthorizationRequest(q, clients)).toMatchObject({ ok: false, redirect: null });
  });

  it.each([
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ code_challenge: undefined }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ scope: 'admin' }, 'invalid_scope'],
  ])('redirects %j back with %s and the state', async (over, error) => {
    const check = await checkAuthorizationRequest({ ...good, ...over }, clients);
    expect(check.ok).toBe(false);
    const redirect = new URL((check as { redirect: string }).redirect);
    expect(redirect.origin + redirect.pathname).toBe(good.redirect_uri);
    expect(redirect.searchParams.get('error')).toBe(error);
    expect(redirect.searchParams.get('state')).toBe('s1');
  });
});

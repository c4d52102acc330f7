/**
 * OAuth 2.1 for third-party apps through the whole stack: the authorization code flow with PKCE
 * over HTTP (authorize → consent with the dashboard session → code → token), the API called
 * with the access token through the official SDK (scopes enforced), `oauthGrants.list` and
 * `revoke` through the SDK, a revoked grant's tokens refused on the very next request, and the
 * refusals the RFCs require (bad verifier, another redirect URI, a reused code or refresh token),
 * token revocation by the app (RFC 7009), and a deleted app's tokens refused at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { email, otherTeam, petrelCli, startStack, type Stack } from './helpers.js';
import {
  authorizationCode,
  authorizationQuery,
  connectApp,
  consent,
  deleteApp,
  pkce,
  registerApp,
  revokeRequest,
  startAuthorization,
  tokenRequest,
  type OAuthApp,
} from './oauth-flow.js';
import { signInToDashboard } from './dashboard-browser.js';

let stack: Stack;
let app: OAuthApp;
let teamB: { full: string };

beforeAll(async () => {
  stack = await startStack();
  app = await registerApp(stack);
  teamB = { full: (await otherTeam(stack, 'team-b')).key };
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const sdk = (token: string) => new Resend(token, { baseUrl: stack.baseUrl });
/** What the SDK gets for an access token that no longer stands. */
const REFUSED_TOKEN = { statusCode: 401, name: 'invalid_access_token' };
/** A refresh of `of`'s refresh token, as the (public) app sends it. */
const refreshAs = (of: OAuthApp, refreshToken: string) =>
  tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: of.client.id });

describe('the authorization code flow with PKCE', () => {
  it('authorize → consent in the dashboard session → code → token; the SDK sends with a sending_access token', async () => {
    const { verifier, challenge } = pkce();
    const query = authorizationQuery(app, { scope: 'sending_access', challenge, state: 'xyz' });

    const started = await startAuthorization(stack, query);
    expect(started.status).toBe(302);
    expect(started.location).toMatch(/^\/dashboard\/#\/oauth\/authorize\?/);
    const pageQuery = started.location!.split('?')[1]!;
    expect(Object.fromEntries(new URLSearchParams(pageQuery))).toEqual(query);

    const browser = await signInToDashboard(stack, stack.key);
    const shown = await browser.request(`/oauth/consent?${pageQuery}`);
    expect(shown.body).toEqual({
      object: 'oauth_consent',
      client: { id: app.client.id, name: 'Mailer App', logo_uri: 'https://mailer-app.example/logo.png' },
      redirect_uri: app.redirectUri,
      scopes: [{ name: 'sending_access', description: 'Send emails on behalf of this team' }],
    });
    const decided = await browser.request('/oauth/consent', {
      method: 'POST',
      body: { ...query, approve: true },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const back = new URL(decided.body.redirect_to);
    expect(`${back.origin}${back.pathname}`).toBe(app.redirectUri);
    expect(back.searchParams.get('state')).toBe('xyz');
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^[\x21-\x7e]{20,}$/);

    const token = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.redirectUri,
      client_id: app.client.id,
      code_verifier: verifier,
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    // an app exchanging its code in a browser reads the answer cross-origin
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
    expect(token.body.expires_in).toBeGreaterThan(0);
    expect(token.body.expires_in).toBeLessThanOrEqual(3600);
    expect(token.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      scope: 'sending_access',
      access_token: expect.stringMatching(/^pto_/),
      refresh_token: expect.stringMatching(/^ptr_/),
    });

    const client = sdk(token.body.access_token);
    const sent = await client.emails.send({ ...email(1), to: ['oauth-sent@example.test'] } as never);
    expect(sent.error).toBeNull();
    await stack.settled([sent.data!.id]);
    expect(stack.sink.byMessageId(`<${sent.data!.id}@acme.test>`)).toHaveLength(1);
    // the email is the consenting team's: its own key reads it
    expect((await stack.resend.emails.get(sent.data!.id)).data?.to).toEqual(['oauth-sent@example.test']);
    // sending scope only: anything else is refused with Resend's error for a missing scope
    expect((await client.apiKeys.list()).error).toMatchObject({
      statusCode: 403,
      name: 'invalid_permission',
    });
    expect((await client.emails.list()).error).toMatchObject({ statusCode: 403, name: 'invalid_permission' });
  });

  it('a full_access token reaches every endpoint; a confidential client is held to its secret', async () => {
    const confidential = await registerApp(stack, {
      name: 'Dashboard Sync',
      logo_uri: null,
      confidential: true,
    });
    expect(confidential.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { code, verifier } = await authorizationCode(
      stack,
      confidential,
      stack.key,
      'full_access sending_access',
    );
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: confidential.redirectUri,
      client_id: confidential.client.id,
      code_verifier: verifier,
    };
    const noSecret = await tokenRequest(stack, form);
    expect(noSecret.status).toBe(400);
    expect(noSecret.body).toMatchObject({ error: 'invalid_client' });
    const wrong = await tokenRequest(stack, form, { id: confidential.client.id, secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
    // a refused client authentication did not use the code up
    const token = await tokenRequest(stack, form, {
      id: confidential.client.id,
      secret: confidential.secret!,
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.scope).toBe('full_access sending_access');
    const client = sdk(token.body.access_token);
    const keys = await client.apiKeys.list();
    expect(keys.error).toBeNull();
    expect(keys.data!.data.map((k) => k.name)).toContain('bootstrap');
    // a grant's apps cannot manage grants
    expect((await client.oauthGrants.list()).error).toMatchObject({
      statusCode: 403,
      name: 'invalid_permission',
    });
  });

  it('refresh rotates the tokens: the new pair works; a used refresh token presented again revokes the grant', async () => {
    const connected = await connectApp(stack, app, stack.key, 'sending_access');
    const refresh = {
      grant_type: 'refresh_token',
      refresh_token: connected.refreshToken,
      client_id: app.client.id,
    };
    const next = await tokenRequest(stack, refresh);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.refresh_token).not.toBe(connected.refreshToken);
    expect((await sdk(next.body.access_token).emails.send(email(2) as never)).error).toBeNull();
    // no widening on refresh (RFC 6749 section 6)
    const wider = await tokenRequest(stack, {
      ...refresh,
      refresh_token: next.body.refresh_token,
      scope: 'full_access',
    });
    expect(wider.status).toBe(400);
    expect(wider.body).toMatchObject({ error: 'invalid_scope' });
    // the first refresh token again: it leaked, so the grant goes with every token of it
    const again = await tokenRequest(stack, refresh);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
    expect((await sdk(next.body.access_token).emails.send(email(2) as never)).error).toMatchObject({
      statusCode: 401,
      name: 'invalid_access_token',
    });
    const grant = (await stack.resend.oauthGrants.list()).data!.data.find((g) => g.id === connected.grantId);
    expect(grant).toMatchObject({ revoked_at: expect.any(String), revoked_reason: 'refresh_token_reused' });
  });
});

describe("the operator's CLI", () => {
  it('registers an app that completes the flow, lists it, refuses a bad redirect URI, deletes it', async () => {
    const cli = petrelCli(stack);
    const out = (
      await cli(
        'oauth-clients',
        'create',
        '--name',
        'CLI App',
        '--redirect-uri',
        'http://127.0.0.1:9/cli-callback',
        '--logo',
        'https://cli-app.example/logo.png',
        '--confidential',
      )
    ).stdout;
    const clientId = /client_id:\s+(\S+)/.exec(out)![1]!;
    const secret = /client_secret:\s+(\S+)/.exec(out)![1]!;
    expect((await cli('oauth-clients', 'list')).stdout).toContain(
      `${clientId}\tCLI App\tconfidential\thttp://127.0.0.1:9/cli-callback\thttps://cli-app.example/logo.png`,
    );
    const registered: OAuthApp = {
      client: {
        id: clientId,
        name: 'CLI App',
        logo_uri: 'https://cli-app.example/logo.png',
        redirect_uris: ['http://127.0.0.1:9/cli-callback'],
        confidential: true,
        created_at: '',
      },
      secret,
      redirectUri: 'http://127.0.0.1:9/cli-callback',
    };
    const connected = await connectApp(stack, registered, stack.key, 'sending_access');
    expect((await sdk(connected.accessToken).emails.send(email(11) as never)).error).toBeNull();
    const listed = (await stack.resend.oauthGrants.list()).data!.data.find((g) => g.id === connected.grantId);
    expect(listed?.client).toEqual({ name: 'CLI App', logo_uri: 'https://cli-app.example/logo.png' });

    await expect(
      cli('oauth-clients', 'create', '--name', 'Bad', '--redirect-uri', 'http://app.example/cb'),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/redirect_uris\[0\]: must be https/) });

    expect((await cli('oauth-clients', 'delete', clientId)).stdout).toContain(`deleted ${clientId}`);
    // a deleted app refreshes no more
    const refresh = await tokenRequest(
      stack,
      { grant_type: 'refresh_token', refresh_token: connected.refreshToken },
      { id: clientId, secret },
    );
    expect(refresh.status).toBe(401);
    expect(refresh.body).toMatchObject({ error: 'invalid_client' });
    await expect(cli('oauth-clients', 'delete', clientId)).rejects.toMatchObject({ code: 1 });
  });
});

describe('oauthGrants.list / revoke', () => {
  it("lists the grant with its client and scopes; a revoked grant's tokens are refused on the next request", async () => {
    const connected = await connectApp(stack, app, stack.key, 'sending_access');
    const client = sdk(connected.accessToken);
    expect((await client.emails.send(email(3) as never)).error).toBeNull();

    const listed = await stack.resend.oauthGrants.list();
    expect(listed.error).toBeNull();
    expect(listed.data!.object).toBe('list');
    const grant = listed.data!.data.find((g) => g.id === connected.grantId);
    expect(grant).toEqual({
      id: connected.grantId,
      client_id: app.client.id,
      scopes: ['sending_access'],
      created_at: expect.any(String),
      revoked_at: null,
      revoked_reason: null,
      client: { name: 'Mailer App', logo_uri: 'https://mailer-app.example/logo.png' },
    });
    expect(Number.isNaN(Date.parse(grant!.created_at))).toBe(false);

    const revoked = await stack.resend.oauthGrants.revoke(connected.grantId);
    expect(revoked.error).toBeNull();
    expect(revoked.data).toEqual({
      object: 'oauth_grant',
      id: connected.grantId,
      revoked_at: expect.any(String),
      revoked_reason: 'revoked_by_team',
    });
    // at once: the very next request with the token is refused
    const refused = await client.emails.send(email(4) as never);
    expect(refused.error).toMatchObject({ statusCode: 401, name: 'invalid_access_token' });
    const raw = await stack.http('/emails', {
      method: 'POST',
      key: connected.accessToken,
      body: JSON.stringify(email(5)),
    });
    expect(raw.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const refresh = await tokenRequest(stack, {
      grant_type: 'refresh_token',
      refresh_token: connected.refreshToken,
      client_id: app.client.id,
    });
    expect(refresh.body).toMatchObject({ error: 'invalid_grant' });

    const after = (await stack.resend.oauthGrants.list()).data!.data.find((g) => g.id === connected.grantId);
    expect(after).toMatchObject({ revoked_at: revoked.data!.revoked_at, revoked_reason: 'revoked_by_team' });
    // revoking again answers as it was
    expect((await stack.resend.oauthGrants.revoke(connected.grantId)).data).toEqual(revoked.data);
    // consenting again makes a new grant
    const reconnected = await connectApp(stack, app, stack.key, 'sending_access');
    expect(reconnected.grantId).not.toBe(connected.grantId);
    expect((await sdk(reconnected.accessToken).emails.send(email(6) as never)).error).toBeNull();
  });

  it("another team's grant id is unknown (404) and its list is its own", async () => {
    const connected = await connectApp(stack, app, stack.key, 'sending_access');
    const b = sdk(teamB.full);
    expect((await b.oauthGrants.revoke(connected.grantId)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
    expect((await b.oauthGrants.list()).data!.data).toEqual([]);
    expect((await sdk(connected.accessToken).emails.send(email(7) as never)).error).toBeNull();
    // B's own consent to the same app is B's grant, with B's tokens
    const ofB = await connectApp(stack, app, teamB.full, 'full_access');
    expect((await b.oauthGrants.list()).data!.data.map((g) => g.id)).toEqual([ofB.grantId]);
    expect((await sdk(ofB.accessToken).domains.list()).data!.data).toEqual([]);
  });

  it('bad input: a clear 4xx naming the parameter', async () => {
    const limit = await stack.http('/oauth/grants?limit=0');
    expect(limit.status).toBe(422);
    expect(limit.body.message).toMatch(/^limit: /);
    const unknown = await stack.http('/oauth/grants/no-such-grant', { method: 'DELETE' });
    expect(unknown.status).toBe(404);
  });
});

describe('POST /oauth/revoke (RFC 7009)', () => {
  const grantOf = async (grantId: string) =>
    (await stack.resend.oauthGrants.list()).data!.data.find((g) => g.id === grantId);

  it('the app revokes its refresh token: the grant ends with its access token at once; an unknown token is 200', async () => {
    const connected = await connectApp(stack, app, stack.key, 'sending_access');
    const client = sdk(connected.accessToken);
    expect((await client.emails.send(email(12) as never)).error).toBeNull();
    const form = {
      token: connected.refreshToken,
      token_type_hint: 'refresh_token',
      client_id: app.client.id,
    };
    const revoked = await revokeRequest(stack, form);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.headers.get('cache-control')).toBe('no-store');
    expect((await client.emails.send(email(13) as never)).error).toMatchObject(REFUSED_TOKEN);
    expect((await refreshAs(app, connected.refreshToken)).body).toMatchObject({ error: 'invalid_grant' });
    expect(await grantOf(connected.grantId)).toMatchObject({
      revoked_at: expect.any(String),
      revoked_reason: 'revoked_by_client',
    });
    // section 2.2: a token revoked already, or never issued, answers 200 all the same
    for (const token of [connected.refreshToken, connected.accessToken, 'pto_a.b.c', 'not-a-token'])
      expect((await revokeRequest(stack, { token, client_id: app.client.id })).status, token).toBe(200);
  });

  it('the client authenticates as at the token endpoint; only the client a token was issued to revokes it', async () => {
    const server = await registerApp(stack, { name: 'Revoking Server', confidential: true });
    const credentials = { id: server.client.id, secret: server.secret! };
    const connected = await connectApp(stack, server, stack.key, 'sending_access');
    const form = { token: connected.accessToken };
    const noSecret = await revokeRequest(stack, { ...form, client_id: server.client.id });
    expect(noSecret.status).toBe(401);
    expect(noSecret.body).toMatchObject({ error: 'invalid_client' });
    const wrong = await revokeRequest(stack, form, { ...credentials, secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await revokeRequest(stack, form)).body).toMatchObject({ error: 'invalid_request' });
    expect((await revokeRequest(stack, {}, credentials)).body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/^token: /),
    });
    // another (public) client holding the token may not revoke it: the token keeps working
    const other = await revokeRequest(stack, { ...form, client_id: app.client.id });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ error: 'invalid_grant' });
    const client = sdk(connected.accessToken);
    expect((await client.emails.send(email(14) as never)).error).toBeNull();
    // its own client, with the secret in the form (client_secret_post): revoked at once
    const done = await revokeRequest(stack, {
      ...form,
      client_id: server.client.id,
      client_secret: server.secret!,
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect((await client.emails.send(email(15) as never)).error).toMatchObject({ statusCode: 401 });
    expect(await grantOf(connected.grantId)).toMatchObject({ revoked_reason: 'revoked_by_client' });
    const meta = await stack.http('/.well-known/oauth-authorization-server', { key: null });
    expect(meta.body.revocation_endpoint).toBe(`${meta.body.issuer}/oauth/revoke`);
  });
});

describe('a deleted app', () => {
  it('its access tokens are refused on the very next request, not when they expire', async () => {
    const doomed = await registerApp(stack, { name: 'Doomed App' });
    const connected = await connectApp(stack, doomed, stack.key, 'full_access');
    const client = sdk(connected.accessToken);
    expect((await client.domains.list()).error).toBeNull();
    expect(await deleteApp(stack, doomed)).toBe(true);
    expect((await client.domains.list()).error).toMatchObject(REFUSED_TOKEN);
    expect((await refreshAs(doomed, connected.refreshToken)).body).toMatchObject({ error: 'invalid_client' });
    // the team's other apps are untouched
    const kept = await connectApp(stack, app, stack.key, 'sending_access');
    expect((await sdk(kept.accessToken).emails.send(email(16) as never)).error).toBeNull();
  });
});

describe('refusals', () => {
  const exchange = (code: string, verifier: string, redirectUri = app.redirectUri) =>
    tokenRequest(stack, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: app.client.id,
      code_verifier: verifier,
    });

  const freshCode = () => authorizationCode(stack, app, stack.key, 'sending_access');

  it('a wrong PKCE verifier is refused and uses the code up', async () => {
    const { code, verifier } = await freshCode();
    const bad = await exchange(code, pkce().verifier);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(code, verifier)).body).toMatchObject({ error: 'invalid_grant' });
    const missing = await freshCode();
    const none = await tokenRequest(stack, {
      grant_type: 'authorization_code',
      code: missing.code,
      redirect_uri: app.redirectUri,
      client_id: app.client.id,
    });
    expect(none.status).toBe(400);
  });

  it('another redirect URI at the token endpoint is refused', async () => {
    const { code, verifier } = await freshCode();
    const res = await exchange(code, verifier, 'http://127.0.0.1:9/other');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
  });

  it("a code is exchanged once: its reuse is refused and revokes the grant (the first exchange's tokens too)", async () => {
    const { code, verifier } = await freshCode();
    const first = await exchange(code, verifier);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const client = sdk(first.body.access_token);
    expect((await client.emails.send(email(8) as never)).error).toBeNull();
    const reused = await exchange(code, verifier);
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ error: 'invalid_grant' });
    expect((await client.emails.send(email(9) as never)).error).toMatchObject({ statusCode: 401 });
    const grantId = (first.body.access_token as string).split('.')[1];
    const grant = (await stack.resend.oauthGrants.list()).data!.data.find((g) => g.id === grantId);
    expect(grant).toMatchObject({ revoked_reason: 'authorization_code_reused' });
  });

  it('two exchanges of one code at once: a replay either way, no token of it stays usable', async () => {
    const { code, verifier } = await freshCode();
    const both = await Promise.all([exchange(code, verifier), exchange(code, verifier)]);
    // the second to take the code revokes the grant; the first may or may not have its tokens
    // by then, and if it has, they are revoked with it
    expect(both.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    expect(both.some((r) => r.status === 400 && r.body.error === 'invalid_grant')).toBe(true);
    for (const r of both.filter((x) => x.status === 200))
      expect((await sdk(r.body.access_token).emails.send(email(10) as never)).error).toMatchObject({
        statusCode: 401,
      });
  });

  it('an unregistered redirect URI or unknown client is shown to the person, never redirected to', async () => {
    const { challenge } = pkce();
    for (const query of [
      authorizationQuery(app, { scope: 'sending_access', challenge, redirectUri: 'https://evil.example/cb' }),
      { ...authorizationQuery(app, { scope: 'sending_access', challenge }), client_id: 'no-such-app' },
    ]) {
      const res = await startAuthorization(stack, query);
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toMatch(/redirect_uri: is not one of the redirect URIs|client_id: no application/);
    }
  });

  it.each([
    [{ code_challenge: '' }, 'invalid_request', /code_challenge: is required/],
    [{ code_challenge_method: 'plain' }, 'invalid_request', /code_challenge_method: must be S256/],
    [{ scope: 'admin' }, 'invalid_scope', /scope: unknown scope "admin"/],
    [{ response_type: 'token' }, 'unsupported_response_type', /response_type: must be code/],
  ])('%j goes back to the app with %s', async (over, error, description) => {
    const query = {
      ...authorizationQuery(app, { scope: 'sending_access', challenge: pkce().challenge }),
      ...over,
    };
    const res = await startAuthorization(stack, query);
    expect(res.status).toBe(302);
    const back = new URL(res.location!);
    expect(`${back.origin}${back.pathname}`).toBe(app.redirectUri);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('error_description')).toMatch(description);
    expect(back.searchParams.get('state')).toBe('st-1');
  });

  it('only a dashboard session consents, with its CSRF token; a denial goes back as access_denied', async () => {
    const query = authorizationQuery(app, { scope: 'full_access', challenge: pkce().challenge });
    const withKey = await stack.http('/oauth/consent', {
      method: 'POST',
      body: JSON.stringify({ ...query, approve: true }),
    });
    expect(withKey.status).toBe(403);
    expect(withKey.body).toMatchObject({ name: 'invalid_permission' });
    const browser = await signInToDashboard(stack, stack.key);
    const noCsrf = await browser.request('/oauth/consent', {
      method: 'POST',
      body: { ...query, approve: true },
      csrf: null,
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toMatchObject({ name: 'invalid_csrf_token' });
    const badBody = await browser.request('/oauth/consent', {
      method: 'POST',
      body: { ...query, approve: 'yes' },
    });
    expect(badBody.status).toBe(422);
    expect(badBody.body.message).toMatch(/^approve: /);
    const before = (await stack.resend.oauthGrants.list()).data!.data.length;
    const denied = await consent(stack, browser, query, false);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();
    expect((await stack.resend.oauthGrants.list()).data!.data).toHaveLength(before);
  });

  it('the token endpoint speaks RFC 6749 errors: form bodies only, known grant types', async () => {
    const json = await fetch(`${stack.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code' }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    // only the code and refresh grants (no client credentials or password grant for apps)
    const other = await tokenRequest(stack, {
      grant_type: 'client_credentials',
      client_id: app.client.id,
      client_secret: 'x',
    });
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ error: 'unauthorized_client' });
    const meta = await stack.http('/.well-known/oauth-authorization-server', { key: null });
    expect(meta.body).toMatchObject({
      issuer: expect.stringMatching(/^http/),
      token_endpoint: expect.stringMatching(/\/oauth\/token$/),
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['full_access', 'sending_access'],
    });
  });
});

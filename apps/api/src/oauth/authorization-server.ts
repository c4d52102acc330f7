/**
 * The OAuth 2.1 authorization server: @node-oauth/oauth2-server over Petrel's stores.
 *
 * Why this library (and not oidc-provider): Petrel needs the OAuth authorization code grant with
 * PKCE and refresh tokens, not OpenID Connect (no ID tokens, userinfo, discovery of JWKS or
 * interaction sessions). @node-oauth/oauth2-server is the maintained continuation of
 * oauth2-server, implements RFC 6749 and RFC 7636 (S256 only unless `plain` is enabled, a failed
 * verifier consumes the code) with a test suite per grant type, is framework-agnostic (plain
 * request/response objects, so it runs inside our Express app without Koa) and keeps nothing
 * itself: every code and token goes through the model below into Redis, under the key layout and
 * one-slot rules of the rest of the store. oidc-provider is a certified OpenID Provider, but is
 * built on Koa, brings its own interaction cookies and sessions, and stores through a generic
 * adapter keyed by model name, which would duplicate the dashboard's session and our key layout.
 *
 * Two servers share the stores: `authorizeServer` (authorize-server.ts) issues codes once the
 * consent page has been approved, and `tokenServer` here exchanges codes and refresh tokens (a confidential client with its secret, a public one
 * with PKCE alone: OAuth 2.1 draft, section 2.1). Codes and tokens are bound to the grant the
 * consent made: a revoked grant's code, refresh token and access tokens all stop working.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import {
  OAUTH_LIFETIMES,
  admitOneTime,
  authenticateOAuthClient,
  readOAuthToken,
  standingGrant,
  takeOneTime,
} from '@petrel/core';
import type { OAuthTokenRecord } from '@petrel/store';
import {
  GRANT_TYPES,
  asOwner,
  heldBy,
  libraryClient,
  revokedGrant,
  sharedModel,
  type OAuthStores,
} from './model.js';

export type { OAuthStores } from './model.js';

/** The access token and, when issued, the refresh token of an exchange, as the store saves them. */
function issued(token: OAuth2Server.Token, base: Omit<OAuthTokenRecord, 'kind' | 'expires_ms'>) {
  const out: { token: string; record: OAuthTokenRecord }[] = [
    {
      token: token.accessToken,
      record: { ...base, kind: 'access', expires_ms: token.accessTokenExpiresAt!.getTime() },
    },
  ];
  if (token.refreshToken) {
    const expires_ms = token.refreshTokenExpiresAt!.getTime();
    out.push({ token: token.refreshToken, record: { ...base, kind: 'refresh', expires_ms } });
  }
  return out;
}

/** The server of the token endpoint (code exchange, refresh). */
export function tokenServer(stores: OAuthStores): OAuth2Server {
  const rules = { grants: stores.grants, clock: Date };
  const model: OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel = {
    ...sharedModel(stores),
    // the library lets a PKCE request through without a secret: core holds a confidential
    // client to its secret (RFC 6749 section 2.3.1)
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      const client = await authenticateOAuthClient(clientId, clientSecret, stores.clients);
      return client ? libraryClient(client) : false;
    },
    async getAuthorizationCode(authorizationCode: string) {
      const code = await stores.grants.getCode(authorizationCode);
      const owner = code && { teamId: code.team_id, grantId: code.grant_id };
      if (!code || !owner || !(await admitOneTime('authorization_code', owner, code.used, rules)))
        return false;
      return {
        authorizationCode,
        expiresAt: new Date(code.expires_ms),
        redirectUri: code.redirect_uri,
        scope: code.scopes,
        client: { id: code.client_id, grants: GRANT_TYPES },
        user: owner,
        ...(code.code_challenge && {
          codeChallenge: code.code_challenge,
          codeChallengeMethod: code.code_challenge_method,
        }),
      };
    },
    // the one exchange: a concurrent second one finds the code taken, a replay
    revokeAuthorizationCode: (code) =>
      takeOneTime(
        'authorization_code',
        asOwner(code.user),
        () => stores.grants.takeCode(code.authorizationCode),
        rules,
      ),
    // the authorize server issues the codes
    saveAuthorizationCode: async () => false,
    async saveToken(token, client, user) {
      const o = asOwner(user);
      if (!(await standingGrant(o, stores))) throw revokedGrant();
      const base = {
        team_id: o.teamId,
        grant_id: o.grantId,
        client_id: client.id,
        scopes: token.scope ?? [],
      };
      await stores.grants.saveTokens(o.teamId, issued(token, base));
      return { ...token, client, user };
    },
    async getRefreshToken(refreshToken: string) {
      const record = await readOAuthToken(stores.grants, 'refresh', refreshToken);
      const owner = record && { teamId: record.team_id, grantId: record.grant_id };
      if (!record || !owner || !(await admitOneTime('refresh_token', owner, record.used, rules)))
        return false;
      return { refreshToken, refreshTokenExpiresAt: new Date(record.expires_ms), ...heldBy(record) };
    },
    // a refresh token is used once: the exchange takes it and issues a new one (rotation,
    // OAuth 2.1 draft, section 4.3.1)
    revokeToken: (token) => {
      const owner = asOwner(token.user);
      return takeOneTime(
        'refresh_token',
        owner,
        () => stores.grants.takeToken(owner.teamId, token.refreshToken),
        rules,
      );
    },
  };
  return new OAuth2Server({
    model,
    accessTokenLifetime: OAUTH_LIFETIMES.accessTokenS,
    refreshTokenLifetime: OAUTH_LIFETIMES.refreshTokenS,
    // public clients authenticate by PKCE (code) or by holding the rotating refresh token;
    // confidential ones are held to their secret in getClient
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    alwaysIssueNewRefreshToken: true,
  });
}

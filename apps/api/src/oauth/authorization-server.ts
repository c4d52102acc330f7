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
 * Two servers share the stores: `authorize` issues codes once the consent page has been
 * approved (the person is the dashboard session; the client authenticates nowhere here), and
 * `token` exchanges codes and refresh tokens (a confidential client with its secret, a public one
 * with PKCE alone: OAuth 2.1 draft, section 2.1). Codes and tokens are bound to the grant the
 * consent made: a revoked grant's code, refresh token and access tokens all stop working.
 */
import { randomBytes } from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import {
  GRANT_REVOKED_CODE_REUSED,
  GRANT_REVOKED_REFRESH_REUSED,
  OAUTH_LIFETIMES,
  formatOAuthToken,
  oauthSecretMatches,
  type OAuthClientsRepository,
} from '@petrel/core';
import type { OAuthGrantsStore, OAuthTokenRecord } from '@petrel/store';
import { readOAuthToken } from './token-auth.js';

export interface OAuthStores {
  clients: OAuthClientsRepository;
  grants: OAuthGrantsStore;
}

/** Whose authorization a code or token carries: the team and the grant its consent made. */
interface GrantUser {
  teamId: string;
  grantId: string;
}

const GRANT_TYPES = ['authorization_code', 'refresh_token'];

const asUser = (user: OAuth2Server.User): GrantUser => ({
  teamId: String(user.teamId),
  grantId: String(user.grantId),
});

/** A stored token's scopes, client and grant, as the library's token objects carry them. */
function heldBy(record: OAuthTokenRecord) {
  return {
    scope: record.scopes,
    client: { id: record.client_id, grants: GRANT_TYPES },
    user: { teamId: record.team_id, grantId: record.grant_id },
  };
}

/** A fresh token secret: 32 random bytes (256 bits), base64url. */
const secret = (): string => randomBytes(32).toString('base64url');

function libraryClient(client: { id: string; redirect_uris: string[] }): OAuth2Server.Client {
  return { id: client.id, redirectUris: client.redirect_uris, grants: GRANT_TYPES };
}

/** The grant a code or token names, when it still stands (else the exchange is refused). */
async function activeGrant(stores: OAuthStores, user: GrantUser) {
  const grant = await stores.grants.get(user.teamId, user.grantId);
  if (!grant || grant.revoked_at !== null)
    throw new OAuth2Server.InvalidGrantError('Invalid grant: the authorization was revoked');
  return grant;
}

/**
 * A one-time credential (a code, a rotated refresh token) presented again: it leaked, and the
 * server cannot tell the app from whoever else holds it, so the grant goes with every token of it.
 */
async function revokeForReplay(stores: OAuthStores, user: GrantUser, reason: string): Promise<void> {
  await stores.grants.revoke(user.teamId, user.grantId, reason, new Date());
}

/** What both servers' models share: scopes must stay within the grant, tokens name their grant. */
function sharedModel(stores: OAuthStores) {
  return {
    async validateScope(user: OAuth2Server.User, _client: OAuth2Server.Client, scope?: string[]) {
      const grant = await activeGrant(stores, asUser(user));
      const wanted = scope ?? [];
      return wanted.length > 0 && wanted.every((s) => grant.scopes.includes(s)) ? wanted : false;
    },
    async generateAccessToken(_client: OAuth2Server.Client, user: OAuth2Server.User) {
      const u = asUser(user);
      return formatOAuthToken('access', u.teamId, u.grantId, secret());
    },
    async generateRefreshToken(_client: OAuth2Server.Client, user: OAuth2Server.User) {
      const u = asUser(user);
      return formatOAuthToken('refresh', u.teamId, u.grantId, secret());
    },
    async getAccessToken(accessToken: string) {
      const record = await readOAuthToken(stores.grants, 'access', accessToken);
      if (!record) return false as const;
      return {
        accessToken,
        accessTokenExpiresAt: new Date(record.expires_ms),
        ...heldBy(record),
      };
    },
  };
}

/** The server that issues authorization codes after consent. */
export function authorizeServer(stores: OAuthStores): OAuth2Server {
  const model: OAuth2Server.AuthorizationCodeModel = {
    ...sharedModel(stores),
    async getClient(clientId: string) {
      const client = await stores.clients.get(clientId);
      return client ? libraryClient(client) : false;
    },
    async saveAuthorizationCode(code, client, user) {
      const u = asUser(user);
      await stores.grants.saveCode(code.authorizationCode, {
        client_id: client.id,
        team_id: u.teamId,
        grant_id: u.grantId,
        scopes: code.scope ?? [],
        redirect_uri: code.redirectUri,
        code_challenge: code.codeChallenge ?? '',
        code_challenge_method: code.codeChallengeMethod ?? '',
        expires_ms: code.expiresAt.getTime(),
      });
      return { ...code, client, user };
    },
    // the token server handles these; the authorize server never exchanges codes
    getAuthorizationCode: async () => false,
    revokeAuthorizationCode: async () => false,
    saveToken: async () => false,
  };
  return new OAuth2Server({
    model,
    authorizationCodeLifetime: OAUTH_LIFETIMES.authorizationCodeS,
    allowEmptyState: true,
  });
}

/** The server of the token endpoint (code exchange, refresh). */
export function tokenServer(stores: OAuthStores): OAuth2Server {
  const model: OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel = {
    ...sharedModel(stores),
    /**
     * A confidential client must present its secret (RFC 6749 section 2.3.1); a public client has
     * none and is bound by PKCE. The library lets a PKCE request through without a secret, so the
     * rule for confidential clients is kept here.
     */
    async getClient(clientId: string, clientSecret: string | null | undefined) {
      const client = await stores.clients.get(clientId);
      if (!client) return false;
      if (client.secretHash !== null) {
        if (!clientSecret || !oauthSecretMatches(clientSecret, client.secretHash)) return false;
      }
      return libraryClient(client);
    },
    async getAuthorizationCode(authorizationCode: string) {
      const code = await stores.grants.getCode(authorizationCode);
      if (!code) return false;
      if (code.used) {
        await revokeForReplay(
          stores,
          { teamId: code.team_id, grantId: code.grant_id },
          GRANT_REVOKED_CODE_REUSED,
        );
        return false;
      }
      return {
        authorizationCode,
        expiresAt: new Date(code.expires_ms),
        redirectUri: code.redirect_uri,
        scope: code.scopes,
        client: { id: code.client_id, grants: GRANT_TYPES },
        user: { teamId: code.team_id, grantId: code.grant_id },
        ...(code.code_challenge && {
          codeChallenge: code.code_challenge,
          codeChallengeMethod: code.code_challenge_method,
        }),
      };
    },
    // the one exchange: a concurrent second one finds the code taken, a replay
    async revokeAuthorizationCode(code) {
      const taken = await stores.grants.takeCode(code.authorizationCode);
      if (taken === 'replayed') await revokeForReplay(stores, asUser(code.user), GRANT_REVOKED_CODE_REUSED);
      return taken === 'taken';
    },
    // the authorize server issues the codes
    saveAuthorizationCode: async () => false,
    async saveToken(token, client, user) {
      const u = asUser(user);
      await activeGrant(stores, u);
      const base = {
        team_id: u.teamId,
        grant_id: u.grantId,
        client_id: client.id,
        scopes: token.scope ?? [],
      };
      await stores.grants.saveTokens(u.teamId, [
        {
          token: token.accessToken,
          record: { ...base, kind: 'access', expires_ms: token.accessTokenExpiresAt!.getTime() },
        },
        ...(token.refreshToken
          ? [
              {
                token: token.refreshToken,
                record: {
                  ...base,
                  kind: 'refresh' as const,
                  expires_ms: token.refreshTokenExpiresAt!.getTime(),
                },
              },
            ]
          : []),
      ]);
      return { ...token, client, user };
    },
    async getRefreshToken(refreshToken: string) {
      const record = await readOAuthToken(stores.grants, 'refresh', refreshToken);
      if (!record) return false;
      if (record.used) {
        const owner = { teamId: record.team_id, grantId: record.grant_id };
        await revokeForReplay(stores, owner, GRANT_REVOKED_REFRESH_REUSED);
        return false;
      }
      return {
        refreshToken,
        refreshTokenExpiresAt: new Date(record.expires_ms),
        ...heldBy(record),
      };
    },
    // a refresh token is used once: the exchange takes it and issues a new one (rotation,
    // OAuth 2.1 draft, section 4.3.1); taking answers 'taken' to one caller only
    async revokeToken(token) {
      const owner = asUser(token.user);
      const taken = await stores.grants.takeToken(owner.teamId, token.refreshToken);
      if (taken === 'replayed') await revokeForReplay(stores, owner, GRANT_REVOKED_REFRESH_REUSED);
      return taken === 'taken';
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

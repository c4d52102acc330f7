/**
 * What both servers' @node-oauth/oauth2-server models share: the library's client and token
 * objects made from Petrel's records, fresh token secrets, scopes kept within the grant, and the
 * access token lookup. The rules behind them are core's (oauth-credentials.ts).
 */
import { randomBytes } from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import {
  formatOAuthToken,
  readOAuthToken,
  scopesWithinGrant,
  standingGrant,
  type GrantOwner,
  type OAuthClientsRepository,
} from '@petrel/core';
import type { OAuthGrantsStore, OAuthTokenRecord } from '@petrel/store';

export interface OAuthStores {
  clients: OAuthClientsRepository;
  grants: OAuthGrantsStore;
}

export const GRANT_TYPES = ['authorization_code', 'refresh_token'];

/** The team and grant a code or token carries (the library's `user`). */
export const asOwner = (user: OAuth2Server.User): GrantOwner => ({
  teamId: String(user.teamId),
  grantId: String(user.grantId),
});

/** A stored token's scopes, client and grant, as the library's token objects carry them. */
export function heldBy(record: Pick<OAuthTokenRecord, 'scopes' | 'client_id' | 'team_id' | 'grant_id'>) {
  return {
    scope: record.scopes,
    client: { id: record.client_id, grants: GRANT_TYPES },
    user: { teamId: record.team_id, grantId: record.grant_id },
  };
}

export function libraryClient(client: { id: string; redirect_uris: string[] }): OAuth2Server.Client {
  return { id: client.id, redirectUris: client.redirect_uris, grants: GRANT_TYPES };
}

/** A fresh token secret: 32 random bytes (256 bits), base64url. */
const secret = (): string => randomBytes(32).toString('base64url');

/** The grant a code or token names no longer stands: the exchange is refused. */
export const revokedGrant = () =>
  new OAuth2Server.InvalidGrantError('Invalid grant: the authorization was revoked');

/** What both servers' models share: scopes must stay within the grant, tokens name their grant. */
export function sharedModel(stores: OAuthStores) {
  return {
    async validateScope(user: OAuth2Server.User, _client: OAuth2Server.Client, scope?: string[]) {
      const grant = await standingGrant(asOwner(user), stores);
      if (!grant) throw revokedGrant();
      return scopesWithinGrant(grant, scope ?? []) ?? false;
    },
    async generateAccessToken(_client: OAuth2Server.Client, user: OAuth2Server.User) {
      const o = asOwner(user);
      return formatOAuthToken('access', o.teamId, o.grantId, secret());
    },
    async generateRefreshToken(_client: OAuth2Server.Client, user: OAuth2Server.User) {
      const o = asOwner(user);
      return formatOAuthToken('refresh', o.teamId, o.grantId, secret());
    },
    async getAccessToken(accessToken: string) {
      const record = await readOAuthToken(stores.grants, 'access', accessToken);
      if (!record) return false as const;
      return { accessToken, accessTokenExpiresAt: new Date(record.expires_ms), ...heldBy(record) };
    },
  };
}

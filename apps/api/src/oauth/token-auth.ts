/**
 * OAuth access tokens as Bearer credentials of the API: the token names its team and grant
 * (core's `parseOAuthToken`), its record and its grant's state are read in one round trip, and
 * its scopes become the permission an API key would have (`permissionOfScopes`). A revoked grant
 * or an expired token reads as absent on the very next request.
 */
import { parseOAuthToken, permissionOfScopes, type OAuthTokenKind } from '@petrel/core';
import type { AuthenticatedKey, OAuthGrantsStore, OAuthTokenRecord } from '@petrel/store';

export interface OAuthBearerAuth {
  /** The team, grant (as `keyId`) and permission of an access token; null when it does not stand. */
  authenticate(token: string): Promise<AuthenticatedKey | null>;
}

/** The record of a token of `kind` that still stands (unexpired, its grant not revoked), or null. */
export async function readOAuthToken(
  grants: Pick<OAuthGrantsStore, 'readToken'>,
  kind: OAuthTokenKind,
  token: string,
): Promise<OAuthTokenRecord | null> {
  const named = parseOAuthToken(token, kind);
  const record = named ? await grants.readToken(named.teamId, named.grantId, token) : null;
  return record && record.kind === kind ? record : null;
}

export function oauthBearerAuth(grants: Pick<OAuthGrantsStore, 'readToken'>): OAuthBearerAuth {
  return {
    async authenticate(token) {
      const record = await readOAuthToken(grants, 'access', token);
      const permission = record ? permissionOfScopes(record.scopes) : null;
      if (!record || !permission) return null;
      return { teamId: record.team_id, keyId: record.grant_id, permission };
    },
  };
}

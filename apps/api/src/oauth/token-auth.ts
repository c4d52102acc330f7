/**
 * OAuth access tokens as Bearer credentials of the API (core's `authenticateOAuthAccess`): the
 * token names its team and grant, its record and its grant's state are read in one round trip,
 * then its client's record (a deleted app's tokens stop at once), and its scopes become the
 * permission an API key would have. A revoked grant or an expired token reads as absent on the
 * very next request.
 */
import { authenticateOAuthAccess } from '@petrel/core';
import type { AuthenticatedKey } from '@petrel/store';
import type { OAuthStores } from './model.js';

export interface OAuthBearerAuth {
  /** The team, grant (as `keyId`) and permission of an access token; null when it does not stand. */
  authenticate(token: string): Promise<AuthenticatedKey | null>;
}

export function oauthBearerAuth(stores: OAuthStores): OAuthBearerAuth {
  const ports = { tokens: stores.grants, clients: stores.clients };
  return { authenticate: (token) => authenticateOAuthAccess(token, ports) };
}

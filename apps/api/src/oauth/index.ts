/**
 * OAuth 2.1 for third-party apps (docs/oauth.md): the authorization server, its routes, and the
 * access tokens as Bearer credentials, over the runtime's OAuth stores.
 */
import type { Stores } from '@petrel/runtime';
import type { RouteSpec } from '../routes/route-table.js';
import { oauthApiRoutes } from './consent.routes.js';
import { oauthPublicRoutes } from './oauth.routes.js';
import { oauthBearerAuth, type OAuthBearerAuth } from './token-auth.js';

export type { OAuthBearerAuth } from './token-auth.js';

export interface OAuthComponents {
  /** Served without an API key: /oauth/authorize, /oauth/token, /oauth/revoke, the RFC 8414 metadata. */
  publicRoutes: RouteSpec[];
  /** Behind the API's authentication: the consent endpoints and /oauth/grants. */
  apiRoutes: RouteSpec[];
  /** Access tokens as Bearer credentials (middleware/auth.ts). */
  tokens: OAuthBearerAuth;
}

export function oauthComponents(deps: {
  stores: Pick<Stores, 'oauthClients' | 'oauthGrants'>;
  publicUrl(): string;
}): OAuthComponents {
  const stores = { clients: deps.stores.oauthClients, grants: deps.stores.oauthGrants };
  const routeDeps = { stores, publicUrl: deps.publicUrl, clock: Date };
  return {
    publicRoutes: oauthPublicRoutes(routeDeps),
    apiRoutes: oauthApiRoutes(routeDeps),
    tokens: oauthBearerAuth(stores),
  };
}

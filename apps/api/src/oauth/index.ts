/**
 * OAuth 2.1 for third-party apps (docs/oauth.md): the authorization server, its routes, and the
 * access tokens as Bearer credentials. `oauthComponents` builds them over one Redis connection.
 */
import { OAuthClientsStore, OAuthGrantsStore, type Keys, type RedisClient } from '@petrel/store';
import type { RouteSpec } from '../routes/route-table.js';
import { oauthApiRoutes, oauthPublicRoutes } from './oauth.routes.js';
import { oauthBearerAuth, type OAuthBearerAuth } from './token-auth.js';

export type { OAuthBearerAuth } from './token-auth.js';

export interface OAuthComponents {
  /** Served without an API key: /oauth/authorize, /oauth/token, the RFC 8414 metadata. */
  publicRoutes: RouteSpec[];
  /** Behind the API's authentication: the consent endpoints and /oauth/grants. */
  apiRoutes: RouteSpec[];
  /** Access tokens as Bearer credentials (middleware/auth.ts). */
  tokens: OAuthBearerAuth;
}

export function oauthComponents(deps: {
  redis: RedisClient;
  keys: Keys;
  publicUrl(): string;
}): OAuthComponents {
  const stores = {
    clients: new OAuthClientsStore(deps.redis, deps.keys),
    grants: new OAuthGrantsStore(deps.redis, deps.keys),
  };
  const routeDeps = { stores, publicUrl: deps.publicUrl, now: () => new Date() };
  return {
    publicRoutes: oauthPublicRoutes(routeDeps),
    apiRoutes: oauthApiRoutes(routeDeps),
    tokens: oauthBearerAuth(stores.grants),
  };
}

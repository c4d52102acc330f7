/**
 * The rules of OAuth credentials once issued. The protocol (code and token endpoints, PKCE) is
 * @node-oauth/oauth2-server's in apps/api/src/oauth; these are the decisions its model asks for:
 *  - a code or token acts only while its grant stands (not revoked) and its client is registered;
 *  - a one-time credential (an authorization code, a rotated refresh token) presented again has
 *    leaked, and the server cannot tell the app from whoever else holds it: the grant goes with
 *    every token of it (RFC 6749 section 4.1.2; OAuth 2.1 draft, section 4.3.1);
 *  - a confidential client authenticates with its secret (RFC 6749 section 2.3.1), a public one
 *    names itself and is held by PKCE or by holding the rotating refresh token;
 *  - a client revokes a token it holds (RFC 7009): the token's grant goes, so its refresh token
 *    takes the access tokens with it (section 2.1); an unknown token is no error (section 2.2).
 */
import type { ApiKeyPermission } from '@petrel/contracts';
import {
  OAUTH_TOKEN_PREFIX,
  parseOAuthToken,
  permissionOfScopes,
  type OAuthTokenKind,
} from './oauth-rules.js';
import type { Clock } from '../kernel/clock.js';
import { oauthSecretMatches } from './oauth-grants.js';
import type { OAuthClientsRepository, OAuthGrantRecord, OAuthGrantsRepository } from './oauth-grants.js';

/**
 * A code presented a second time: someone else holds it, so every token issued from it goes
 * (RFC 6749 section 4.1.2: the server "SHOULD revoke (when possible) all tokens previously issued
 * based on that authorization code"); the grant is revoked, which ends them all.
 */
export const GRANT_REVOKED_CODE_REUSED = 'authorization_code_reused';
/**
 * A rotated refresh token presented again: the token leaked, and the server cannot tell the app
 * from the thief, so the grant goes (OAuth 2.1 draft, section 4.3.1, refresh token rotation).
 */
export const GRANT_REVOKED_REFRESH_REUSED = 'refresh_token_reused';
/** The app itself revoked one of its tokens (POST /oauth/revoke, RFC 7009). */
export const GRANT_REVOKED_BY_CLIENT = 'revoked_by_client';

/** Whose authorization a code or token carries: the team and the grant its consent made. */
export interface GrantOwner {
  teamId: string;
  grantId: string;
}

/** A one-time credential: exchanged once, a second presentation is a replay. */
export type OneTimeCredential = 'authorization_code' | 'refresh_token';

/** What taking a one-time credential found: taken now, taken before (a replay), or no record. */
export type OAuthTakeResult = 'taken' | 'replayed' | 'gone';

/** What the rules read of a stored token (the store keeps more). */
export interface OAuthTokenFacts {
  kind: OAuthTokenKind;
  client_id: string;
  scopes: string[];
}

export interface OAuthTokensPort<R extends OAuthTokenFacts = OAuthTokenFacts> {
  /** The token's record when it exists, is unexpired and its grant is not revoked; else null. */
  readToken(teamId: string, grantId: string, token: string): Promise<R | null>;
}

export interface OAuthCredentialPorts {
  grants: Pick<OAuthGrantsRepository, 'get' | 'revoke'>;
  clock: Pick<Clock, 'now'>;
}

const REPLAY_REASON: Readonly<Record<OneTimeCredential, string>> = {
  authorization_code: GRANT_REVOKED_CODE_REUSED,
  refresh_token: GRANT_REVOKED_REFRESH_REUSED,
};

/** The grant a code or token names while it stands; null once revoked (or never made). */
export async function standingGrant(
  owner: GrantOwner,
  ports: Pick<OAuthCredentialPorts, 'grants'>,
): Promise<OAuthGrantRecord | null> {
  const grant = await ports.grants.get(owner.teamId, owner.grantId);
  return grant && grant.revoked_at === null ? grant : null;
}

/** The scopes wanted, when there are some and the grant holds each of them; null otherwise. */
export function scopesWithinGrant(grant: Pick<OAuthGrantRecord, 'scopes'>, wanted: readonly string[]) {
  return wanted.length > 0 && wanted.every((s) => grant.scopes.includes(s)) ? [...wanted] : null;
}

/** A one-time credential read for its exchange: refused, and its grant revoked, when used before. */
export async function admitOneTime(
  kind: OneTimeCredential,
  owner: GrantOwner,
  used: boolean | undefined,
  ports: OAuthCredentialPorts,
): Promise<boolean> {
  if (!used) return true;
  await ports.grants.revoke(owner.teamId, owner.grantId, REPLAY_REASON[kind], ports.clock.now());
  return false;
}

/**
 * The one exchange of a one-time credential: `take` marks it used atomically and answers 'taken'
 * to one caller only; a caller that finds it taken already is a replay, and revokes the grant.
 */
export async function takeOneTime(
  kind: OneTimeCredential,
  owner: GrantOwner,
  take: () => Promise<OAuthTakeResult>,
  ports: OAuthCredentialPorts,
): Promise<boolean> {
  const taken = await take();
  if (taken === 'replayed') await admitOneTime(kind, owner, true, ports);
  return taken === 'taken';
}

/** The client as it authenticates at the token or revocation endpoint; null when refused. */
export async function authenticateOAuthClient(
  clientId: string,
  secret: string | null | undefined,
  clients: Pick<OAuthClientsRepository, 'get'>,
) {
  const client = clientId.length <= 128 ? await clients.get(clientId) : null;
  if (!client) return null;
  if (client.secretHash !== null && !(secret && oauthSecretMatches(secret, client.secretHash))) return null;
  return client;
}

/** The record of a token of `kind` that still stands (unexpired, its grant not revoked), or null. */
export async function readOAuthToken<R extends OAuthTokenFacts>(
  tokens: OAuthTokensPort<R>,
  kind: OAuthTokenKind,
  token: string,
): Promise<R | null> {
  const named = parseOAuthToken(token, kind);
  const record = named ? await tokens.readToken(named.teamId, named.grantId, token) : null;
  return record && record.kind === kind ? record : null;
}

/**
 * An access token as a credential of the API: its team, its grant (as `keyId`) and the permission
 * its scopes amount to. Null when the token does not stand or its client was deleted since: a
 * deleted app's tokens stop at once, not when they expire.
 */
export async function authenticateOAuthAccess(
  token: string,
  ports: { tokens: OAuthTokensPort; clients: Pick<OAuthClientsRepository, 'get'> },
): Promise<{ teamId: string; keyId: string; permission: ApiKeyPermission } | null> {
  const named = parseOAuthToken(token, 'access');
  const record = named ? await readOAuthToken(ports.tokens, 'access', token) : null;
  const permission = record ? permissionOfScopes(record.scopes) : null;
  if (!named || !record || !permission || !(await ports.clients.get(record.client_id))) return null;
  return { teamId: named.teamId, keyId: named.grantId, permission };
}

/**
 * RFC 7009 section 2.1: `clientId` (authenticated already) revokes `token`. 'unknown' for a token
 * that is not one, expired or revoked already (the endpoint answers 200 all the same, section
 * 2.2); 'other_client' for a token issued to another client, which the request may not revoke.
 */
export async function revokeOAuthTokenOfClient(
  input: { token: string; clientId: string },
  ports: OAuthCredentialPorts & { tokens: OAuthTokensPort },
): Promise<'revoked' | 'unknown' | 'other_client'> {
  const kinds = Object.keys(OAUTH_TOKEN_PREFIX) as OAuthTokenKind[];
  const kind = kinds.find((k) => parseOAuthToken(input.token, k) !== null);
  const record = kind ? await readOAuthToken(ports.tokens, kind, input.token) : null;
  if (!kind || !record) return 'unknown';
  if (record.client_id !== input.clientId) return 'other_client';
  const { teamId, grantId } = parseOAuthToken(input.token, kind)!;
  await ports.grants.revoke(teamId, grantId, GRANT_REVOKED_BY_CLIENT, ports.clock.now());
  return 'revoked';
}

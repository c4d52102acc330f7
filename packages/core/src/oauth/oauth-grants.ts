/**
 * The use-cases of OAuth clients and grants, over their ports. A grant is a team's consent to one
 * client: it is made (or widened) when a person approves the consent page in the dashboard, its
 * authorization codes and tokens hang off it, and revoking it (DELETE /oauth/grants/:id) ends all
 * of them at once. One active grant per team and client: approving the same client again adds the
 * new scopes to it (incremental authorization) instead of stacking grants.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { PetrelError, formatIssues, notFound, type OAuthAuthorizationParam } from '@petrel/contracts';
import type { Clock } from '../kernel/clock.js';
import {
  OAUTH_SCOPE_DESCRIPTIONS,
  oauthClientRegistrationSchema,
  parseScopes,
  type OAuthScope,
} from './oauth-rules.js';

export interface OAuthClientRecord {
  id: string;
  name: string;
  logo_uri: string | null;
  redirect_uris: string[];
  confidential: boolean;
  created_at: string;
}

export interface OAuthClientsRepository {
  /** Store a new client; `secretHash` is the sha256 of a confidential client's secret. */
  create(client: OAuthClientRecord, secretHash: string | null): Promise<void>;
  get(clientId: string): Promise<(OAuthClientRecord & { secretHash: string | null }) | null>;
  /** Every client, oldest first. */
  list(): Promise<OAuthClientRecord[]>;
  /** Remove a client: its grants stay listed, no new consent or token is given to it. */
  delete(clientId: string): Promise<boolean>;
}

export interface OAuthGrantRecord {
  id: string;
  client_id: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface OAuthGrantsRepository {
  /**
   * The team's active grant to `clientId` with `scopes` added, or a new one with id `newGrantId`
   * when there is none; atomic against concurrent approvals and revocations.
   */
  approve(
    teamId: string,
    input: { clientId: string; scopes: readonly OAuthScope[]; newGrantId: string; nowMs: number },
  ): Promise<OAuthGrantRecord>;
  get(teamId: string, grantId: string): Promise<OAuthGrantRecord | null>;
  /** The team's grants, newest first (revoked ones too, with their time and reason). */
  list(teamId: string): Promise<OAuthGrantRecord[]>;
  /** Mark the grant revoked (its tokens fail from then on); null when the team has no such grant. */
  revoke(teamId: string, grantId: string, reason: string, nowMs: number): Promise<OAuthGrantRecord | null>;
}

/** The reason a grant revoked through DELETE /oauth/grants/:id (or the dashboard) carries. */
export const GRANT_REVOKED_BY_TEAM = 'revoked_by_team';

export const hashOAuthSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Constant-time check of a presented client secret against the stored hash. */
export function oauthSecretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashOAuthSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Register a client (the operator's CLI). Bad input → 422 naming the field and the rule. */
export async function registerOAuthClient(
  input: unknown,
  ports: {
    clients: OAuthClientsRepository;
    newId(): string;
    randomSecret(): string;
    clock: Pick<Clock, 'now'>;
  },
): Promise<{ client: OAuthClientRecord; secret: string | null }> {
  const parsed = oauthClientRegistrationSchema.safeParse(input);
  if (!parsed.success)
    throw new PetrelError('validation_error', formatIssues(parsed.error.issues, { input }));
  const body = parsed.data;
  const client: OAuthClientRecord = {
    id: ports.newId(),
    name: body.name,
    logo_uri: body.logo_uri ?? null,
    redirect_uris: [...new Set(body.redirect_uris)],
    confidential: body.confidential ?? false,
    created_at: new Date(ports.clock.now()).toISOString(),
  };
  const secret = client.confidential ? ports.randomSecret() : null;
  await ports.clients.create(client, secret === null ? null : hashOAuthSecret(secret));
  return { client, secret };
}

/** A checked authorization request (RFC 6749 section 4.1.1 with PKCE, RFC 7636 section 4.3). */
export interface AuthorizationRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | undefined;
  codeChallenge: string;
}

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** The client or its redirect URI is wrong: tell the person, never redirect (RFC 6749 4.1.2.1). */
  | { ok: false; redirect: null; message: string }
  /** Anything else: back to the client's redirect URI with `error` (RFC 6749 section 4.1.2.1). */
  | { ok: false; redirect: string; error: string; message: string };

/** RFC 7636 section 4.2: the S256 challenge is base64url of a SHA-256, 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

const one = (query: Record<string, unknown>, name: OAuthAuthorizationParam): string | undefined => {
  const v = query[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/**
 * Check an authorization request's parameters (the query of GET /oauth/authorize, or the body the
 * consent page posts) against the registered client.
 */
export async function checkAuthorizationRequest(
  query: Record<string, unknown>,
  clients: Pick<OAuthClientsRepository, 'get'>,
): Promise<AuthorizationCheck> {
  const clientId = one(query, 'client_id');
  if (!clientId) return { ok: false, redirect: null, message: 'client_id: is required' };
  const client = clientId.length <= 128 ? await clients.get(clientId) : null;
  if (!client)
    return { ok: false, redirect: null, message: 'client_id: no application is registered with this id' };
  const redirectUri = one(query, 'redirect_uri');
  if (!redirectUri) return { ok: false, redirect: null, message: 'redirect_uri: is required' };
  if (!client.redirect_uris.includes(redirectUri))
    return {
      ok: false,
      redirect: null,
      message: 'redirect_uri: is not one of the redirect URIs registered for this application',
    };
  const state = one(query, 'state');
  const fail = (error: string, message: string): AuthorizationCheck => ({
    ok: false,
    error,
    message,
    redirect: authorizationRedirect(redirectUri, { error, error_description: message, state }),
  });
  if (one(query, 'response_type') !== 'code')
    return fail('unsupported_response_type', 'response_type: must be code');
  const codeChallenge = one(query, 'code_challenge');
  if (!codeChallenge) return fail('invalid_request', 'code_challenge: is required (PKCE with S256)');
  if (one(query, 'code_challenge_method') !== 'S256')
    return fail('invalid_request', 'code_challenge_method: must be S256');
  if (!S256_CHALLENGE.test(codeChallenge))
    return fail('invalid_request', 'code_challenge: must be 43 base64url characters (a SHA-256)');
  const scopes = parseScopes(one(query, 'scope'));
  if ('error' in scopes) return fail('invalid_scope', scopes.error);
  return { ok: true, request: { client, redirectUri, scopes: scopes.scopes, state, codeChallenge } };
}

/** `redirectUri` with `params` added to its query (its own query kept: RFC 6749 section 3.1.2). */
export function authorizationRedirect(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** What the consent page shows about a checked request. */
export function consentDetails(request: AuthorizationRequest) {
  return {
    object: 'oauth_consent',
    client: { id: request.client.id, name: request.client.name, logo_uri: request.client.logo_uri },
    redirect_uri: request.redirectUri,
    scopes: request.scopes.map((name) => ({ name, description: OAUTH_SCOPE_DESCRIPTIONS[name] })),
  };
}

/** The grant as the SDK types it (`OAuthGrant` of resend). */
export function oauthGrantWire(grant: OAuthGrantRecord, client: OAuthClientRecord | null) {
  return {
    id: grant.id,
    client_id: grant.client_id,
    scopes: grant.scopes,
    created_at: grant.created_at,
    revoked_at: grant.revoked_at,
    revoked_reason: grant.revoked_reason,
    client: { name: client?.name ?? '', logo_uri: client?.logo_uri ?? null },
  };
}

/** The team's grants with their clients, newest first. */
export async function listOAuthGrants(
  teamId: string,
  ports: { grants: OAuthGrantsRepository; clients: OAuthClientsRepository },
) {
  const grants = await ports.grants.list(teamId);
  const clients = new Map<string, OAuthClientRecord | null>();
  for (const id of new Set(grants.map((g) => g.client_id))) clients.set(id, await ports.clients.get(id));
  return grants.map((g) => oauthGrantWire(g, clients.get(g.client_id) ?? null));
}

/**
 * Revoke one of the team's grants (again: answered as it was revoked). Another team's grant id is
 * unknown here: 404, as any id the team does not have.
 */
export async function revokeOAuthGrant(
  teamId: string,
  grantId: string,
  ports: { grants: OAuthGrantsRepository; clock: Pick<Clock, 'now'> },
) {
  const nowMs = ports.clock.now();
  const grant = await ports.grants.revoke(teamId, grantId, GRANT_REVOKED_BY_TEAM, nowMs);
  if (!grant) throw notFound('OAuth grant');
  return {
    object: 'oauth_grant' as const,
    id: grant.id,
    revoked_at: grant.revoked_at ?? new Date(nowMs).toISOString(),
    revoked_reason: grant.revoked_reason ?? GRANT_REVOKED_BY_TEAM,
  };
}

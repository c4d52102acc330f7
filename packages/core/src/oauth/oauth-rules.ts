/**
 * OAuth 2.1 rules of Petrel's authorization server: third-party apps ("clients", registered by
 * the operator) connect to a team through the authorization code flow with PKCE, and call the
 * API with the Bearer access tokens it issues. The protocol itself (code and token endpoints,
 * PKCE verification, error responses) is @node-oauth/oauth2-server's, in apps/api/src/oauth; the
 * rules here are Petrel's:
 *  - scopes are the API key permissions: `full_access` reaches every endpoint, `sending_access`
 *    only the sending ones (as a sending_access API key);
 *  - redirect URIs are registered and compared by exact string (OAuth 2.1 draft, section
 *    4.1.1: no pattern matching); each is `https`, or `http` on a loopback address for native
 *    apps (RFC 8252 section 7.3), and has no fragment (RFC 6749 section 3.1.2);
 *  - PKCE with `S256` is required on every authorization request (OAuth 2.1 draft, section
 *    4.1.1; `plain` is refused, RFC 7636 section 7.2);
 *  - a token names its team and grant, so checking it is one read of the team's slot, and the
 *    same read sees its grant's revocation: a revoked grant's tokens fail on the next request.
 */
import { z } from 'zod';
import type { ApiKeyPermission } from '@petrel/contracts';
import { isHttpScheme, parseUrl } from '../kernel/url.js';

export const OAUTH_SCOPES = ['full_access', 'sending_access'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What the consent page says each scope lets the app do. */
export const OAUTH_SCOPE_DESCRIPTIONS: Readonly<Record<OAuthScope, string>> = {
  full_access: 'Read and change everything in this team: emails, domains, contacts, API keys and more',
  sending_access: 'Send emails on behalf of this team',
};

/** How long each credential lives, in seconds. */
export const OAUTH_LIFETIMES = {
  /** RFC 6749 section 4.1.2: "a maximum authorization code lifetime of 10 minutes is RECOMMENDED". */
  authorizationCodeS: 60,
  accessTokenS: 3600,
  refreshTokenS: 30 * 86_400,
} as const;

export const OAUTH_TOKEN_PREFIX = { access: 'pto_', refresh: 'ptr_' } as const;
export type OAuthTokenKind = keyof typeof OAUTH_TOKEN_PREFIX;

/** The permission a set of granted scopes amounts to (null: none that reaches the API). */
export function permissionOfScopes(scopes: readonly string[]): ApiKeyPermission | null {
  if (scopes.includes('full_access')) return 'full_access';
  if (scopes.includes('sending_access')) return 'sending_access';
  return null;
}

const isScope = (s: string): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s);

/**
 * The scopes of a request's `scope` parameter (space-delimited, RFC 6749 section 3.3), deduplicated
 * in the order of {@link OAUTH_SCOPES}; an error message for an empty or unknown one.
 */
export function parseScopes(raw: string | undefined): { scopes: OAuthScope[] } | { error: string } {
  const words = (raw ?? '').split(' ').filter(Boolean);
  if (words.length === 0) return { error: `scope: is required (one or more of ${OAUTH_SCOPES.join(', ')})` };
  const unknown = words.filter((w) => !isScope(w));
  if (unknown.length > 0)
    return {
      error: `scope: unknown scope ${JSON.stringify(unknown[0])} (known: ${OAUTH_SCOPES.join(', ')})`,
    };
  return { scopes: OAUTH_SCOPES.filter((s) => words.includes(s)) };
}

/** The union of two scope lists, in the order of {@link OAUTH_SCOPES}. */
export function unionScopes(a: readonly string[], b: readonly string[]): OAuthScope[] {
  return OAUTH_SCOPES.filter((s) => a.includes(s) || b.includes(s));
}

/**
 * A token: `<prefix><teamId>.<grantId>.<secret>`. The team and grant in it choose where the
 * token's record is looked up; the record is keyed by the hash of the whole string, so changing
 * any part of it finds nothing.
 */
export function formatOAuthToken(
  kind: OAuthTokenKind,
  teamId: string,
  grantId: string,
  secret: string,
): string {
  return `${OAUTH_TOKEN_PREFIX[kind]}${teamId}.${grantId}.${secret}`;
}

const TOKEN_PART = /^[A-Za-z0-9_-]{1,64}$/;

/** The team and grant a token names, or null when it is not one of {@link OAUTH_TOKEN_PREFIX}'s kind. */
export function parseOAuthToken(
  token: string,
  kind: OAuthTokenKind,
): { teamId: string; grantId: string } | null {
  const prefix = OAUTH_TOKEN_PREFIX[kind];
  if (!token.startsWith(prefix) || token.length > 256) return null;
  const [teamId, grantId, secret, extra] = token.slice(prefix.length).split('.');
  if (extra !== undefined || !teamId || !grantId || !secret) return null;
  if (!TOKEN_PART.test(teamId) || !TOKEN_PART.test(grantId) || !TOKEN_PART.test(secret)) return null;
  return { teamId, grantId };
}

/** True when `token` looks like an OAuth access token (else it is taken for an API key). */
export const isOAuthAccessToken = (token: string): boolean => token.startsWith(OAUTH_TOKEN_PREFIX.access);

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why `uri` cannot be a redirect URI, or null when it can (rules in the header). */
export function redirectUriProblem(uri: string): string | null {
  const url = parseUrl(uri);
  if (url === null) return 'must be an absolute URL';
  if (uri.includes('#')) return 'must not have a fragment (RFC 6749 section 3.1.2)';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https, or http on a loopback address (RFC 8252 section 7.3)';
}

const httpUrl = z
  .string()
  .max(2048)
  .refine((s) => {
    const url = parseUrl(s);
    return url !== null && isHttpScheme(url);
  }, 'must be an http(s) URL');

/** What the operator registers a client with (`npm run petrel -- oauth-clients create`). */
export const oauthClientRegistrationSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  logo_uri: httpUrl.nullable().optional(),
  redirect_uris: z
    .array(
      z
        .string()
        .max(2048)
        .superRefine((uri, ctx) => {
          const problem = redirectUriProblem(uri);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    )
    .min(1)
    .max(10),
  /** A confidential client authenticates at the token endpoint with its secret; a public one only with PKCE. */
  confidential: z.boolean().optional(),
});
export type OAuthClientRegistration = z.infer<typeof oauthClientRegistrationSchema>;

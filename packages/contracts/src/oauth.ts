/**
 * The parameters of an OAuth authorization request (RFC 6749 section 4.1.1, with RFC 7636's PKCE
 * challenge): what GET /oauth/authorize takes, what it hands on to the dashboard's consent page,
 * and what the page posts back with the person's decision (POST /oauth/consent).
 */
export const OAUTH_AUTHORIZATION_PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;
export type OAuthAuthorizationParam = (typeof OAUTH_AUTHORIZATION_PARAMS)[number];

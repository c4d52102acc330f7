/**
 * The OAuth 2.1 authorization code flow with PKCE, driven over HTTP as a third-party app and a
 * person in the dashboard would: register the app (the operator's use-case over the stack's
 * Redis), GET /oauth/authorize, sign in to the dashboard, read and approve the consent page's
 * request with the session cookie and CSRF token, take the code from the redirect, exchange it at
 * POST /oauth/token. Used by oauth-grants.e2e.test.ts, the contract test and team-resources.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { newId, registerOAuthClient, type OAuthClientRecord } from '@petrel/core';
import { OAuthClientsStore } from '@petrel/store';
import { signInToDashboard, type DashboardBrowser } from './dashboard-browser.js';
import type { Stack } from './helpers.js';

export interface OAuthApp {
  client: OAuthClientRecord;
  /** A confidential client's secret; null for a public one. */
  secret: string | null;
  redirectUri: string;
}

/** Register an app as the operator's CLI does (the same use-case, on the stack's Redis). */
export async function registerApp(
  stack: Stack,
  over: { name?: string; logo_uri?: string | null; redirect_uris?: string[]; confidential?: boolean } = {},
): Promise<OAuthApp> {
  const redirectUris = over.redirect_uris ?? ['http://127.0.0.1:9/callback'];
  const { client, secret } = await registerOAuthClient(
    {
      name: 'Mailer App',
      logo_uri: 'https://mailer-app.example/logo.png',
      ...over,
      redirect_uris: redirectUris,
    },
    {
      clients: new OAuthClientsStore(stack.admin, stack.keys),
      newId: () => newId(),
      randomSecret: () => randomBytes(32).toString('base64url'),
      clock: Date,
    },
  );
  return { client, secret, redirectUri: redirectUris[0]! };
}

/** A PKCE verifier and its S256 challenge (RFC 7636 section 4.1, 4.2). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizeParams {
  scope: string;
  state?: string;
  challenge: string;
  redirectUri?: string;
  method?: string;
}

/** The query of an authorization request of `app` (RFC 6749 section 4.1.1, RFC 7636 section 4.3). */
export function authorizationQuery(app: OAuthApp, p: AuthorizeParams): Record<string, string> {
  return {
    response_type: 'code',
    client_id: app.client.id,
    redirect_uri: p.redirectUri ?? app.redirectUri,
    scope: p.scope,
    state: p.state ?? 'st-1',
    code_challenge: p.challenge,
    code_challenge_method: p.method ?? 'S256',
  };
}

/** GET /oauth/authorize without following the redirect. */
export async function startAuthorization(stack: Stack, query: Record<string, string>) {
  const res = await fetch(`${stack.baseUrl}/oauth/authorize?${new URLSearchParams(query).toString()}`, {
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/**
 * The person's side: /oauth/authorize sends the browser to the consent page, which reads the
 * request and posts the decision; returns the URL the browser is sent back to the app with.
 */
export async function consent(
  stack: Stack,
  browser: DashboardBrowser,
  query: Record<string, string>,
  approve = true,
): Promise<URL> {
  const started = await startAuthorization(stack, query);
  expect(started.status, started.text).toBe(302);
  expect(started.location).toMatch(/^\/dashboard\/#\/oauth\/authorize\?/);
  const pageQuery = started.location!.slice(started.location!.indexOf('?') + 1);
  const shown = await browser.request(`/oauth/consent?${pageQuery}`);
  expect(shown.status, JSON.stringify(shown.body)).toBe(200);
  const decided = await browser.request('/oauth/consent', {
    method: 'POST',
    body: { ...Object.fromEntries(new URLSearchParams(pageQuery)), approve },
  });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  return new URL(decided.body.redirect_to as string);
}

/**
 * A person of `apiKey`'s team signs in to the dashboard and approves `app` for `scope` (PKCE,
 * S256): the code the app is sent back with, its verifier and the URL it came back on.
 */
export async function authorizationCode(
  stack: Stack,
  app: OAuthApp,
  apiKey: string,
  scope: string,
  state?: string,
): Promise<{ code: string; verifier: string; back: URL }> {
  const browser = await signInToDashboard(stack, apiKey);
  const { verifier, challenge } = pkce();
  const back = await consent(stack, browser, authorizationQuery(app, { scope, challenge, state }));
  const code = back.searchParams.get('code');
  expect(code, back.toString()).toBeTruthy();
  return { code: code!, verifier, back };
}

type FormAnswer = { status: number; body: any; headers: Headers };

/** A form POST to one of the client's endpoints; `basic`: client id and secret (RFC 6749 2.3.1). */
async function postForm(
  stack: Stack,
  path: string,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<FormAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** POST /oauth/token (RFC 6749 section 4.1.3, 6). */
export const tokenRequest = (
  stack: Stack,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
) => postForm(stack, '/oauth/token', form, basic);

/** POST /oauth/revoke (RFC 7009 section 2.1). */
export const revokeRequest = (
  stack: Stack,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
) => postForm(stack, '/oauth/revoke', form, basic);

/** Delete a registered app as the operator's CLI does (`oauth-clients delete`: the same store call). */
export function deleteApp(stack: Stack, app: OAuthApp): Promise<boolean> {
  return new OAuthClientsStore(stack.admin, stack.keys).delete(app.client.id);
}

export interface Connected {
  grantId: string;
  accessToken: string;
  refreshToken: string;
  scope: string;
}

/** The whole flow for `app` with the team of `apiKey`: the tokens the app ends up with. */
export async function connectApp(
  stack: Stack,
  app: OAuthApp,
  apiKey: string,
  scope: string,
): Promise<Connected> {
  const { code, verifier, back } = await authorizationCode(stack, app, apiKey, scope, 'conn');
  expect(back.searchParams.get('state')).toBe('conn');
  const token = await tokenRequest(
    stack,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: app.redirectUri,
      client_id: app.client.id,
      code_verifier: verifier,
    },
    app.secret ? { id: app.client.id, secret: app.secret } : undefined,
  );
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  const grantId = (token.body.access_token as string).split('.')[1]!;
  return {
    grantId,
    accessToken: token.body.access_token,
    refreshToken: token.body.refresh_token,
    scope: token.body.scope,
  };
}

/**
 * The authorization server's half that issues codes (@node-oauth/oauth2-server, chosen in
 * authorization-server.ts): it runs once the consent page is approved, for the person of the
 * dashboard session; the client authenticates nowhere here.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import { OAUTH_LIFETIMES } from '@petrel/core';
import { asOwner, libraryClient, sharedModel, type OAuthStores } from './model.js';

/** The server that issues authorization codes after consent. */
export function authorizeServer(stores: OAuthStores): OAuth2Server {
  const model: OAuth2Server.AuthorizationCodeModel = {
    ...sharedModel(stores),
    async getClient(clientId: string) {
      const client = await stores.clients.get(clientId);
      return client ? libraryClient(client) : false;
    },
    async saveAuthorizationCode(code, client, user) {
      const o = asOwner(user);
      await stores.grants.saveCode(code.authorizationCode, {
        client_id: client.id,
        team_id: o.teamId,
        grant_id: o.grantId,
        scopes: code.scope ?? [],
        redirect_uri: code.redirectUri,
        code_challenge: code.codeChallenge ?? '',
        code_challenge_method: code.codeChallengeMethod ?? '',
        expires_ms: code.expiresAt.getTime(),
      });
      return { ...code, client, user };
    },
    // the token server handles these; the authorize server never exchanges codes
    getAuthorizationCode: async () => false,
    revokeAuthorizationCode: async () => false,
    saveToken: async () => false,
  };
  return new OAuth2Server({
    model,
    authorizationCodeLifetime: OAUTH_LIFETIMES.authorizationCodeS,
    allowEmptyState: true,
  });
}

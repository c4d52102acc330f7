/**
 * The Lua scripts of OAuth grants (oauth.store.ts): `lua/petrelApproveOAuthGrant-4.lua` and
 * `lua/petrelRevokeOAuthGrant-2.lua`, loaded into the one registry of scripts.ts (same naming,
 * same slot check on every call). Both run on one team's slot.
 */

/** The scripts as commands of a connection, with their replies. */
export interface OAuthStoreCommands {
  petrelApproveOAuthGrant(
    byClient: string,
    grants: string,
    newGrant: string,
    readGrant: string,
    ...argv: (string | number)[]
  ): Promise<[string, string]>;
  petrelRevokeOAuthGrant(grant: string, byClient: string, ...argv: string[]): Promise<number>;
}

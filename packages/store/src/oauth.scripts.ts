/**
 * The Lua scripts of OAuth grants (oauth.store.ts): `lua/petrelApproveOAuthGrant-4.lua`,
 * `lua/petrelRevokeOAuthGrant-2.lua` (one team's slot) and `lua/petrelTakeOAuthCredential-1.lua`
 * (one key), loaded into the one registry of scripts.ts (same naming, same slot check on every
 * call).
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
  petrelTakeOAuthCredential(record: string, nowMs: number): Promise<number>;
}

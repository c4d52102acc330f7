/**
 * In-memory OAuth clients, grants and tokens for unit tests of core's OAuth use-cases: the same
 * behaviour as the Redis store (packages/store/src/oauth.store.ts) — one active grant per team and
 * client widened on approval, revocation once (a second keeps the first time and reason), a token
 * reading only while unexpired and its grant stands, a one-time credential taken by one caller.
 */
import { unionScopes } from '@petrel/core';
import type * as core from '@petrel/core';

/** A token as the store keeps it: what the rules read, its owner, its end, whether it was taken. */
export type MemoryOAuthToken = core.OAuthTokenFacts & {
  team_id: string;
  grant_id: string;
  expires_ms: number;
  used?: boolean;
};

export class MemoryOAuthClients implements core.OAuthClientsRepository {
  readonly clients = new Map<string, core.OAuthClientRecord & { secretHash: string | null }>();

  async create(client: core.OAuthClientRecord, secretHash: string | null): Promise<void> {
    this.clients.set(client.id, { ...client, secretHash });
  }

  async get(clientId: string) {
    return this.clients.get(clientId) ?? null;
  }

  async list(): Promise<core.OAuthClientRecord[]> {
    return [...this.clients.values()].map(({ secretHash: _, ...c }) => c);
  }

  async delete(clientId: string): Promise<boolean> {
    return this.clients.delete(clientId);
  }
}

/** Grants and their tokens (tokens by their text; a code can be kept here alike to be taken). */
export class MemoryOAuthGrants implements core.OAuthGrantsRepository, core.OAuthTokensPort<MemoryOAuthToken> {
  /** Grants by `<team>/<grant>`, in creation order. */
  readonly grants = new Map<string, core.OAuthGrantRecord>();
  readonly tokens = new Map<string, MemoryOAuthToken>();

  constructor(private readonly clock: Pick<core.Clock, 'now'> = Date) {}

  async approve(
    teamId: string,
    input: { clientId: string; scopes: readonly core.OAuthScope[]; newGrantId: string; nowMs: number },
  ): Promise<core.OAuthGrantRecord> {
    const active = [...this.grants.entries()].find(
      ([k, g]) => k.startsWith(`${teamId}/`) && g.client_id === input.clientId && g.revoked_at === null,
    );
    const grant: core.OAuthGrantRecord = active
      ? { ...active[1], scopes: unionScopes(active[1].scopes, input.scopes) }
      : {
          id: input.newGrantId,
          client_id: input.clientId,
          scopes: unionScopes(input.scopes, []),
          created_at: new Date(input.nowMs).toISOString(),
          revoked_at: null,
          revoked_reason: null,
        };
    this.grants.set(`${teamId}/${grant.id}`, grant);
    return { ...grant };
  }

  async get(teamId: string, grantId: string): Promise<core.OAuthGrantRecord | null> {
    const grant = this.grants.get(`${teamId}/${grantId}`);
    return grant ? { ...grant } : null;
  }

  async list(teamId: string): Promise<core.OAuthGrantRecord[]> {
    return [...this.grants.entries()]
      .filter(([k]) => k.startsWith(`${teamId}/`))
      .map(([, g]) => ({ ...g }))
      .reverse();
  }

  async revoke(
    teamId: string,
    grantId: string,
    reason: string,
    nowMs: number,
  ): Promise<core.OAuthGrantRecord | null> {
    const grant = this.grants.get(`${teamId}/${grantId}`);
    if (!grant) return null;
    if (grant.revoked_at === null)
      Object.assign(grant, { revoked_at: new Date(nowMs).toISOString(), revoked_reason: reason });
    return { ...grant };
  }

  async readToken(teamId: string, grantId: string, token: string): Promise<MemoryOAuthToken | null> {
    const record = this.tokens.get(token);
    const grant = this.grants.get(`${teamId}/${grantId}`);
    if (!record || record.team_id !== teamId || record.grant_id !== grantId) return null;
    if (!grant || grant.revoked_at !== null || record.expires_ms <= this.clock.now()) return null;
    return { ...record };
  }

  /** Take a one-time credential: 'taken' for one caller, 'replayed' after, 'gone' when none lives. */
  async take(token: string): Promise<core.OAuthTakeResult> {
    const record = this.tokens.get(token);
    if (!record || record.expires_ms <= this.clock.now()) return 'gone';
    if (record.used) return 'replayed';
    record.used = true;
    return 'taken';
  }
}

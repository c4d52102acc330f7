/**
 * OAuth clients, grants, authorization codes and tokens (the rules are core's: oauth/).
 *
 *  - Clients live in one `{oauth-clients}` slot: a record and the listing in one MULTI.
 *  - A team's grants and tokens live in the team's slot. A token's key is the sha256 of the
 *    token under the team and grant the token names, so checking a token is one pipeline of the
 *    token's record and its grant's `revoked_at`: revoking (one script on the grant) makes every
 *    token of the grant fail on the very next check, in every API process, with no cache to expire.
 *    Tokens expire by themselves (PEXPIREAT); a revoked grant's tokens are left to expire.
 *  - An authorization code is a global key alone (the token endpoint knows only the code), keyed
 *    by its sha256 and expiring with the code; the one exchange deletes it (DEL answers 1 to one
 *    caller only, so a code is never exchanged twice, RFC 6749 section 4.1.2).
 */
import { createHash } from 'node:crypto';
import {
  OAUTH_SCOPES,
  unionScopes,
  type OAuthClientRecord,
  type OAuthClientsRepository,
  type OAuthGrantRecord,
  type OAuthGrantsRepository,
  type OAuthScope,
  type OAuthTakeResult,
} from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { readHashes } from './hash-records.js';
import { execAll, pipeline, transaction } from './scripts.js';
import { TeamStore } from './team-store.js';

export const oauthTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const splitScopes = (s: string | undefined): string[] => (s ?? '').split(' ').filter(Boolean);

export class OAuthClientsStore extends TeamStore implements OAuthClientsRepository {
  constructor(redis: RedisClient, keys: Keys) {
    super(redis, keys);
  }

  async create(client: OAuthClientRecord, secretHash: string | null): Promise<void> {
    await execAll(
      transaction(this.redis, 'OAuthClientsStore.create')
        .hset(this.keys.oauthClient(client.id), {
          id: client.id,
          name: client.name,
          logo_uri: client.logo_uri ?? '',
          redirect_uris: JSON.stringify(client.redirect_uris),
          confidential: client.confidential ? 'true' : 'false',
          secret_hash: secretHash ?? '',
          created_at: client.created_at,
        })
        .zadd(this.keys.oauthClients(), Date.parse(client.created_at), client.id),
    );
  }

  async get(clientId: string): Promise<(OAuthClientRecord & { secretHash: string | null }) | null> {
    const h = await this.redis.hgetall(this.keys.oauthClient(clientId));
    if (!h.id) return null;
    return { ...toClient(h), secretHash: h.secret_hash || null };
  }

  async list(): Promise<OAuthClientRecord[]> {
    const ids = await this.redis.zrange(this.keys.oauthClients(), 0, '-1');
    const keys = ids.map((id) => this.keys.oauthClient(id));
    return readHashes(this.redis, 'OAuthClientsStore.list', keys, toClient);
  }

  async delete(clientId: string): Promise<boolean> {
    const [deleted] = (await execAll(
      transaction(this.redis, 'OAuthClientsStore.delete')
        .del(this.keys.oauthClient(clientId))
        .zrem(this.keys.oauthClients(), clientId),
    )) as [number, number];
    return deleted === 1;
  }
}

function toClient(h: Record<string, string>): OAuthClientRecord {
  return {
    id: h.id ?? '',
    name: h.name ?? '',
    logo_uri: h.logo_uri || null,
    redirect_uris: JSON.parse(h.redirect_uris ?? '[]') as string[],
    confidential: h.confidential === 'true',
    created_at: h.created_at ?? '',
  };
}

/** An authorization code as stored (RFC 6749 section 4.1.2 with RFC 7636's challenge). */
export interface OAuthCodeRecord {
  client_id: string;
  team_id: string;
  grant_id: string;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  code_challenge_method: string;
  expires_ms: number;
  /** Exchanged already (read back only): presenting it again is a replay. */
  used?: boolean;
}

/** An access or refresh token as stored. */
export interface OAuthTokenRecord {
  kind: 'access' | 'refresh';
  team_id: string;
  grant_id: string;
  client_id: string;
  scopes: string[];
  expires_ms: number;
  /** A refresh token exchanged already (read back only): presenting it again is a replay. */
  used?: boolean;
}

/** What taking a one-time credential found: taken now, taken before (a replay), or no such record. */
export type TakeResult = OAuthTakeResult;

const takeResult = (n: number): TakeResult => (n === 1 ? 'taken' : n === 0 ? 'replayed' : 'gone');

/** How often an approval retries when another approval or a revocation moved the grant meanwhile. */
const APPROVE_ATTEMPTS = 5;

export class OAuthGrantsStore extends TeamStore implements OAuthGrantsRepository {
  constructor(redis: RedisClient, keys: Keys) {
    super(redis, keys);
  }

  async approve(
    teamId: string,
    input: { clientId: string; scopes: readonly OAuthScope[]; newGrantId: string; nowMs: number },
  ): Promise<OAuthGrantRecord> {
    const byClient = this.keys.oauthGrantByClient(teamId);
    let read = (await this.redis.hget(byClient, input.clientId)) ?? '';
    for (let attempt = 0; attempt < APPROVE_ATTEMPTS; attempt++) {
      const [status, grantId] = await this.redis.petrelApproveOAuthGrant(
        byClient,
        this.keys.oauthGrants(teamId),
        this.keys.oauthGrant(teamId, input.newGrantId),
        this.keys.oauthGrant(teamId, read || input.newGrantId),
        input.clientId,
        input.newGrantId,
        read,
        unionScopes(input.scopes, []).join(' '),
        new Date(input.nowMs).toISOString(),
        input.nowMs,
        OAUTH_SCOPES.join(' '),
      );
      if (status !== 'retry') {
        const grant = await this.get(teamId, grantId);
        if (grant) return grant;
      }
      read = status === 'retry' ? grantId : '';
    }
    throw new Error('OAuth grant approval kept racing with other approvals or revocations');
  }

  async get(teamId: string, grantId: string): Promise<OAuthGrantRecord | null> {
    const h = await this.redis.hgetall(this.keys.oauthGrant(teamId, grantId));
    return h.id ? toGrant(h) : null;
  }

  async list(teamId: string): Promise<OAuthGrantRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.oauthGrants(teamId), 0, '-1');
    const keys = ids.map((id) => this.keys.oauthGrant(teamId, id));
    return readHashes(this.redis, 'OAuthGrantsStore.list', keys, toGrant);
  }

  async revoke(
    teamId: string,
    grantId: string,
    reason: string,
    nowMs: number,
  ): Promise<OAuthGrantRecord | null> {
    const done = await this.redis.petrelRevokeOAuthGrant(
      this.keys.oauthGrant(teamId, grantId),
      this.keys.oauthGrantByClient(teamId),
      grantId,
      new Date(nowMs).toISOString(),
      reason,
    );
    return done === 0 ? null : this.get(teamId, grantId);
  }

  // --- authorization codes ---------------------------------------------------------------

  async saveCode(code: string, record: OAuthCodeRecord): Promise<void> {
    const key = this.keys.oauthCode(oauthTokenHash(code));
    await execAll(
      transaction(this.redis, 'OAuthGrantsStore.saveCode')
        .hset(key, { ...record, scopes: record.scopes.join(' '), expires_ms: String(record.expires_ms) })
        .pexpireat(key, record.expires_ms),
    );
  }

  async getCode(code: string): Promise<OAuthCodeRecord | null> {
    const h = await this.redis.hgetall(this.keys.oauthCode(oauthTokenHash(code)));
    if (!h.client_id || !h.team_id || !h.grant_id) return null;
    return {
      client_id: h.client_id,
      team_id: h.team_id,
      grant_id: h.grant_id,
      scopes: splitScopes(h.scopes),
      redirect_uri: h.redirect_uri ?? '',
      code_challenge: h.code_challenge ?? '',
      code_challenge_method: h.code_challenge_method ?? '',
      expires_ms: Number(h.expires_ms),
      ...(h.used_ms !== undefined && { used: true }),
    };
  }

  /**
   * Take the code for its one exchange: 'taken' for the one caller that did, 'replayed' for any
   * later one while the record lives (its lifetime), 'gone' when there is none. The record stays
   * until it expires so that a replay is recognised.
   */
  async takeCode(code: string): Promise<TakeResult> {
    return takeResult(
      await this.redis.petrelTakeOAuthCredential(this.keys.oauthCode(oauthTokenHash(code)), this.clock.now()),
    );
  }

  // --- tokens ------------------------------------------------------------------------------

  /** Store tokens of one team (an access token and its refresh token) in one MULTI. */
  async saveTokens(
    teamId: string,
    tokens: readonly { token: string; record: OAuthTokenRecord }[],
  ): Promise<void> {
    const multi = transaction(this.redis, 'OAuthGrantsStore.saveTokens');
    for (const { token, record } of tokens) {
      const key = this.keys.oauthToken(teamId, oauthTokenHash(token));
      multi
        .hset(key, { ...record, scopes: record.scopes.join(' '), expires_ms: String(record.expires_ms) })
        .pexpireat(key, record.expires_ms);
    }
    await execAll(multi);
  }

  /**
   * The token's record when it exists, is unexpired and its grant (the one the token names) is
   * not revoked; else null. One round trip: the record and the grant's state in one pipeline.
   */
  async readToken(teamId: string, grantId: string, token: string): Promise<OAuthTokenRecord | null> {
    const [[, h], [, revoked], [, exists]] = (await pipeline(this.redis, 'OAuthGrantsStore.readToken')
      .hgetall(this.keys.oauthToken(teamId, oauthTokenHash(token)))
      .hexists(this.keys.oauthGrant(teamId, grantId), 'revoked_at')
      .exists(this.keys.oauthGrant(teamId, grantId))
      .exec()) as [[unknown, Record<string, string>], [unknown, number], [unknown, number]];
    if (!h.grant_id || h.grant_id !== grantId || h.team_id !== teamId) return null;
    if (revoked === 1 || exists !== 1) return null;
    const expiresMs = Number(h.expires_ms);
    if (!(expiresMs > this.clock.now())) return null;
    return {
      kind: h.kind === 'refresh' ? 'refresh' : 'access',
      team_id: teamId,
      grant_id: grantId,
      client_id: h.client_id ?? '',
      scopes: splitScopes(h.scopes),
      expires_ms: expiresMs,
      ...(h.used_ms !== undefined && { used: true }),
    };
  }

  /** Take a refresh token for its one rotation (as {@link takeCode}; it stays until it expires). */
  async takeToken(teamId: string, token: string): Promise<TakeResult> {
    return takeResult(
      await this.redis.petrelTakeOAuthCredential(
        this.keys.oauthToken(teamId, oauthTokenHash(token)),
        this.clock.now(),
      ),
    );
  }
}

function toGrant(h: Record<string, string>): OAuthGrantRecord {
  return {
    id: h.id ?? '',
    client_id: h.client_id ?? '',
    scopes: splitScopes(h.scopes),
    created_at: h.created_at ?? '',
    revoked_at: h.revoked_at || null,
    revoked_reason: h.revoked_reason || null,
  };
}

/**
 * Teams and API keys. Tokens are shown once and stored only as a sha256 hash; a global index
 * maps the hash to `<teamId>:<keyId>:<permission>:<hash>[:<domainId>]` (the domain of a sending
 * key restricted to one) so authenticating a request is one HGET.
 *
 * The global keys (the teams set, the token index) live in other hash slots than a team's keys,
 * so no script or MULTI writes both (Redis Cluster refuses it; slots.ts checks it). Each write is
 * two steps, ordered so that the global entry never points at a record that does not exist:
 *  - creating writes the team-side record first and the global entry last;
 *  - deleting removes the global entry first and the team-side record last.
 * A crash between the two steps leaves at most a team-side record no global entry points at: a
 * team that is not listed (its hash is never read), or an API key that shows in its team's list
 * but cannot authenticate (revoking it finishes the job). Readers therefore trust the global entry
 * without a second read: authentication stays one HGET, and a revoked key fails on the very next
 * request in every API process.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RedisClient } from './redis.js';
import { LRUCache } from 'lru-cache';
import { isApiKeyPermission, type ApiKeyPermission } from '@petrel/contracts';
import { newId } from '@petrel/core';
import { Keys } from './keys.js';
import { readHashes } from './hash-records.js';
import { defineScripts, execAll, transaction, type StoreCommands } from './scripts.js';

export interface ApiKeyRecord {
  id: string;
  name: string;
  permission: ApiKeyPermission;
  domain_id: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface AuthenticatedKey {
  teamId: string;
  keyId: string;
  permission: ApiKeyPermission;
  /** A sending_access key restricted to one domain (`domain_id`): it sends from that domain only. */
  domainId?: string;
}

const DEFAULT_TEAM_NAME = 'default';

/** `last_used_at` is written at most this often per key and process: authentication stays one read. */
const TOUCH_INTERVAL_MS = 60_000;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new token: `re_` + 32 url-safe random characters (~190 bits). */
function generateToken(): string {
  return `re_${randomBytes(24).toString('base64url')}`;
}

export class ApiKeysStore {
  private readonly redis: RedisClient & StoreCommands;
  /** Keys whose last use this process wrote within the past minute (bounded, expiring). */
  private readonly recentlyTouched = new LRUCache<string, true>({ max: 10_000, ttl: TOUCH_INTERVAL_MS });

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
  ) {
    this.redis = defineScripts(redis);
  }

  /** The team record first, then its entry in the teams set (see the header). */
  async createTeam(name: string, id: string = newId()): Promise<string> {
    await this.redis.hset(this.keys.team(id), { id, name, created_at: new Date().toISOString() });
    await this.redis.sadd(this.keys.teams(), id);
    return id;
  }

  async listTeams(): Promise<{ id: string; name: string; created_at: string }[]> {
    const ids = await this.redis.smembers(this.keys.teams());
    const rows = await Promise.all(ids.map((id) => this.redis.hgetall(this.keys.team(id))));
    return rows
      .filter((r) => r.id)
      .map((r) => ({ id: r.id!, name: r.name ?? '', created_at: r.created_at ?? '' }))
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** Every team id (for jobs that visit each team, like housekeeping). */
  teamIds(): Promise<string[]> {
    return this.redis.smembers(this.keys.teams());
  }

  async teamExists(teamId: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.teams(), teamId)) === 1;
  }

  /** The team named `default`, created on first use. */
  async ensureDefaultTeam(): Promise<string> {
    const teams = await this.listTeams();
    const found = teams.find((t) => t.name === DEFAULT_TEAM_NAME);
    return found ? found.id : this.createTeam(DEFAULT_TEAM_NAME);
  }

  async countKeys(): Promise<number> {
    return this.redis.hlen(this.keys.apiKeyByHash());
  }

  /** Create a key. `token` is for BOOTSTRAP_API_KEY only; normally a random one is generated. */
  async create(
    teamId: string,
    input: { name: string; permission?: ApiKeyPermission; domain_id?: string | null; token?: string },
  ): Promise<{ id: string; token: string }> {
    const id = newId();
    const token = input.token ?? generateToken();
    const permission = input.permission ?? 'full_access';
    const hash = hashToken(token);
    // The key's record and listing entry (the team's slot) first, the token index last (header).
    await execAll(
      transaction(this.redis, 'ApiKeysStore.create')
        .hset(this.keys.apiKey(teamId, id), {
          id,
          name: input.name,
          permission,
          domain_id: input.domain_id ?? '',
          created_at: new Date().toISOString(),
          token_hash: hash,
        })
        .zadd(this.keys.apiKeys(teamId), Date.now(), id),
    );
    // a sending key's domain restriction rides in the index entry: authentication stays one HGET
    const domain = permission === 'sending_access' && input.domain_id ? `:${input.domain_id}` : '';
    await this.redis.hset(this.keys.apiKeyByHash(), hash, `${teamId}:${id}:${permission}:${hash}${domain}`);
    return { id, token };
  }

  /**
   * Make sure a full_access key with exactly `token` exists for `teamId` (BOOTSTRAP_API_KEY).
   * Returns true when it was created now.
   */
  async ensureToken(teamId: string, token: string, name = 'bootstrap'): Promise<boolean> {
    const existing = await this.redis.hget(this.keys.apiKeyByHash(), hashToken(token));
    if (existing) return false;
    await this.create(teamId, { name, permission: 'full_access', token });
    return true;
  }

  /** Resolve a bearer token, or null when unknown or revoked. One round trip. */
  async authenticate(token: string): Promise<AuthenticatedKey | null> {
    const hash = hashToken(token);
    const entry = await this.redis.hget(this.keys.apiKeyByHash(), hash);
    if (!entry) return null;
    // The index lookup finds the candidate; the final check compares the stored hash with the
    // presented one in constant time, independent of how Redis compared the field names.
    const [teamId, keyId, permission, storedHash, domainId] = entry.split(':');
    if (!teamId || !keyId || !storedHash || !ApiKeysStore.matches(token, storedHash)) return null;
    if (!isApiKeyPermission(permission)) return null;
    this.touch(teamId, keyId);
    return { teamId, keyId, permission, ...(domainId ? { domainId } : {}) };
  }

  /** Constant-time comparison of a presented token with a stored hash. */
  static matches(token: string, storedHash: string): boolean {
    const a = Buffer.from(hashToken(token), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Record last use, at most once a minute per key and process (fire and forget). */
  private touch(teamId: string, keyId: string): void {
    if (this.recentlyTouched.has(keyId)) return;
    this.recentlyTouched.set(keyId, true);
    this.redis
      .petrelSetFieldsIfExists(this.keys.apiKey(teamId, keyId), 'last_used_at', new Date().toISOString())
      .catch(() => undefined);
  }

  async list(teamId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.zrange(this.keys.apiKeys(teamId), 0, '-1');
    const keys = ids.map((id) => this.keys.apiKey(teamId, id));
    return (await readHashes(this.redis, 'ApiKeysStore.list', keys, toRecord)).reverse();
  }

  async get(teamId: string, keyId: string): Promise<ApiKeyRecord | null> {
    const r = await this.redis.hgetall(this.keys.apiKey(teamId, keyId));
    return r.id ? toRecord(r) : null;
  }

  async rename(teamId: string, keyId: string, name: string): Promise<boolean> {
    const res = await this.redis.petrelSetFieldsIfExists(this.keys.apiKey(teamId, keyId), 'name', name);
    return res === 1;
  }

  /**
   * Revoke: the token index entry first (from then on the key authenticates nowhere), then the
   * record and its listing entry in one transaction of the team's slot (header).
   */
  async revoke(teamId: string, keyId: string): Promise<boolean> {
    const key = this.keys.apiKey(teamId, keyId);
    const hash = await this.redis.hget(key, 'token_hash');
    if (!hash) return false;
    await this.redis.hdel(this.keys.apiKeyByHash(), hash);
    await execAll(
      transaction(this.redis, 'ApiKeysStore.revoke').del(key).zrem(this.keys.apiKeys(teamId), keyId),
    );
    return true;
  }
}

function toRecord(r: Record<string, string>): ApiKeyRecord {
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    permission: (r.permission as ApiKeyPermission) ?? 'full_access',
    domain_id: r.domain_id || null,
    created_at: r.created_at ?? '',
    last_used_at: r.last_used_at || null,
  };
}

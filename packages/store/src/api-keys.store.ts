/**
 * Teams and API keys. Tokens are shown once and stored only as a sha256 hash; a global index
 * maps the hash to `<teamId>:<keyId>:<permission>:<hash>` so authenticating a request is one HGET.
 * Revoking deletes the index entry in the same transaction as the record, so a revoked key
 * fails on the very next request in every API process.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Redis } from 'ioredis';
import { Keys } from './keys.js';

export type Permission = 'full_access' | 'sending_access';

export interface ApiKeyRecord {
  id: string;
  name: string;
  permission: Permission;
  domain_id: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface AuthenticatedKey {
  teamId: string;
  keyId: string;
  permission: Permission;
}

export const DEFAULT_TEAM_NAME = 'default';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new token: `re_` + 32 url-safe random characters (~190 bits). */
export function generateToken(): string {
  return `re_${randomBytes(24).toString('base64url')}`;
}

export class ApiKeysStore {
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async createTeam(name: string, id: string = uuidv7()): Promise<string> {
    await this.redis
      .multi()
      .sadd(this.keys.teams(), id)
      .hset(this.keys.team(id), { id, name, created_at: new Date().toISOString() })
      .exec();
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
    input: { name: string; permission?: Permission; domain_id?: string | null; token?: string },
  ): Promise<{ id: string; token: string }> {
    const id = uuidv7();
    const token = input.token ?? generateToken();
    const permission = input.permission ?? 'full_access';
    const hash = hashToken(token);
    await this.redis
      .multi()
      .hset(this.keys.apiKey(teamId, id), {
        id,
        name: input.name,
        permission,
        domain_id: input.domain_id ?? '',
        created_at: new Date().toISOString(),
        token_hash: hash,
      })
      .zadd(this.keys.apiKeys(teamId), Date.now(), id)
      .hset(this.keys.apiKeyByHash(), hash, `${teamId}:${id}:${permission}:${hash}`)
      .exec();
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
    const [teamId, keyId, permission, storedHash] = entry.split(':');
    if (!teamId || !keyId || !storedHash || !ApiKeysStore.matches(token, storedHash)) return null;
    if (permission !== 'full_access' && permission !== 'sending_access') return null;
    this.touch(teamId, keyId);
    return { teamId, keyId, permission };
  }

  /** Constant-time comparison of a presented token with a stored hash. */
  static matches(token: string, storedHash: string): boolean {
    const a = Buffer.from(hashToken(token), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Record last use, at most once a minute per key and process (fire and forget). */
  private touch(teamId: string, keyId: string): void {
    const now = Date.now();
    if ((this.lastUsedWritten.get(keyId) ?? 0) > now - 60_000) return;
    this.lastUsedWritten.set(keyId, now);
    const key = this.keys.apiKey(teamId, keyId);
    this.redis
      .eval(
        "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'last_used_at', ARGV[1]) end",
        1,
        key,
        new Date(now).toISOString(),
      )
      .catch(() => undefined);
  }

  async list(teamId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.zrange(this.keys.apiKeys(teamId), 0, '-1');
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.apiKey(teamId, id));
    const rows = (await pipe.exec()) ?? [];
    return rows
      .map(([, r]) => r as Record<string, string>)
      .filter((r) => r && r.id)
      .map(toRecord)
      .reverse();
  }

  async get(teamId: string, keyId: string): Promise<ApiKeyRecord | null> {
    const r = await this.redis.hgetall(this.keys.apiKey(teamId, keyId));
    return r.id ? toRecord(r) : null;
  }

  async rename(teamId: string, keyId: string, name: string): Promise<boolean> {
    const key = this.keys.apiKey(teamId, keyId);
    const res = await this.redis.eval(
      "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end redis.call('HSET', KEYS[1], 'name', ARGV[1]) return 1",
      1,
      key,
      name,
    );
    return res === 1;
  }

  /** Revoke: the record, its listing entry and its token index entry go in one transaction. */
  async revoke(teamId: string, keyId: string): Promise<boolean> {
    const key = this.keys.apiKey(teamId, keyId);
    const hash = await this.redis.hget(key, 'token_hash');
    if (!hash) return false;
    await this.redis
      .multi()
      .hdel(this.keys.apiKeyByHash(), hash)
      .del(key)
      .zrem(this.keys.apiKeys(teamId), keyId)
      .exec();
    return true;
  }
}

function toRecord(r: Record<string, string>): ApiKeyRecord {
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    permission: (r.permission as Permission) ?? 'full_access',
    domain_id: r.domain_id || null,
    created_at: r.created_at ?? '',
    last_used_at: r.last_used_at || null,
  };
}

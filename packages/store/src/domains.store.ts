/**
 * Sending domains: one hash per domain (`domain:<id>`), a creation-time listing, a name → id
 * hash (one domain per name per team, decided inside the create script), and a global schedule
 * of the next periodic check of every domain.
 *
 * Hash fields: id, name, region, custom_return_path, capabilities (JSON), open_tracking and
 * click_tracking ('1'/'0'), tls, tracking_subdomain ('' = null), dkim (JSON: selector,
 * algorithm, public key per key), checks (JSON: record key → status), status, created_at,
 * updated_at, checked_at ('' = never), rev, and private_keys (JSON: selector → AES-256-GCM
 * ciphertext, domains.crypto.ts) which no reader but {@link DomainsStore.forSending} decrypts.
 *
 * Every write is one Lua script that also appends its domain.* event to the team's events
 * stream; updates are optimistic on `rev`. An update publishes domain.updated only when it
 * moves `updated_at` (the use-cases move it when something the webhook payload shows changed:
 * a periodic check that finds everything as before writes `checked_at` silently).
 *
 * The check schedule (`Keys.domainChecks`) and the return-path index (`Keys.returnPathDomains`,
 * for the inbound server) are global: written alone, after the team's write on create and after
 * it on delete; a scheduled entry whose domain is gone is dropped by the scheduler, and a stale
 * return-path entry only routes a bounce to a team that matches no email with it, so a crash
 * between the steps leaves nothing that matters.
 */
import { LRUCache } from 'lru-cache';
import type {
  DkimPublicKey,
  DomainCapabilities,
  DomainRecordSet,
  DomainRecordStatus,
  DomainRegion,
  DomainStatus,
  DomainTls,
} from '@petrel/contracts';
import {
  UUID_RE,
  newId,
  returnPathDomain,
  sendingVerified,
  type DomainChange,
  type DomainEventData,
  type DomainsPort,
  type NewDomain,
  type Page,
  type PageRequest,
  type SendingDomain,
  type SendingDomains,
  idKey,
} from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN, type Keys } from './keys.js';
import { pageHashes } from './hash-records.js';
import type { RedisClient } from './redis.js';
import { teamEventJson } from './team-event-json.js';
import { TeamStore } from './team-store.js';
import { generateDkimKey, type DomainKeyCipher } from './domains.crypto.js';

/** Optimistic-concurrency retries before a write gives up (only under heavy contention). */
const MAX_WRITE_ATTEMPTS = 8;
/** How long a process reuses what it read of a from-domain for sending (keys decrypted). */
export const SENDING_DOMAIN_CACHE_MS = 30_000;
const SENDING_DOMAIN_CACHE_ENTRIES = 10_000;

export interface DomainsStoreOptions {
  /**
   * Encrypts new private keys and decrypts them for signing; without it: no create, no forSending.
   * A function is called (once per use) only when a key is sealed or opened, so a process that
   * never does pays no read of the secret.
   */
  cipher?: DomainKeyCipher | (() => Promise<DomainKeyCipher>);
  clock?: { now(): number };
  /** How long forSending reuses a read (default {@link SENDING_DOMAIN_CACHE_MS}). */
  sendingCacheMs?: number;
  /** When a new domain is first checked by the scheduler: this long after its creation (default 1 h). */
  checkIntervalMs?: number;
}

const DEFAULT_CHECK_INTERVAL_MS = 3_600_000;

export class DomainsStore extends TeamStore implements DomainsPort, SendingDomains {
  private readonly cipher: DomainKeyCipher | (() => Promise<DomainKeyCipher>) | undefined;
  private readonly checkIntervalMs: number;
  private readonly sending: LRUCache<string, { value: SendingDomain | null }>;

  constructor(redis: RedisClient, keys: Keys, opts: DomainsStoreOptions = {}) {
    super(redis, keys, opts.clock);
    this.cipher = opts.cipher;
    this.checkIntervalMs = opts.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
    this.sending = new LRUCache({
      max: SENDING_DOMAIN_CACHE_ENTRIES,
      ttl: opts.sendingCacheMs ?? SENDING_DOMAIN_CACHE_MS,
    });
  }

  async create(
    teamId: string,
    input: NewDomain,
    event: DomainEventData,
  ): Promise<{ ok: true; domain: DomainRecordSet } | { ok: false; reason: 'name_taken' }> {
    const cipher = await this.requireCipher();
    if (await this.redis.hexists(this.keys.domainNames(teamId), input.name))
      return { ok: false, reason: 'name_taken' };
    const nowMs = this.clock.now();
    const id = newId(nowMs);
    const generated = await Promise.all(input.dkim.map((k) => generateDkimKey(k.algorithm)));
    const dkim: DkimPublicKey[] = input.dkim.map((k, i) => ({ ...k, publicKey: generated[i]!.publicKey }));
    const privateKeys = Object.fromEntries(
      input.dkim.map((k, i) => [
        k.selector,
        cipher.encrypt(generated[i]!.privateKeyPem, keyContext(teamId, id, k.selector)),
      ]),
    );
    const iso = new Date(nowMs).toISOString();
    const { dkim: _requested, ...options } = input;
    const domain: DomainRecordSet = {
      id,
      ...options,
      dkim,
      checks: {},
      status: 'not_started',
      created_at: iso,
      updated_at: iso,
      checked_at: null,
    };
    const ok = await this.redis.petrelCreateDomain(
      ...this.domainKeys(teamId, id),
      id,
      domain.name,
      nowMs,
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      teamEventJson('domain.created', teamId, event(domain), nowMs),
      ...domainPairs(domain),
      'rev',
      '0',
      'private_keys',
      JSON.stringify(privateKeys),
    );
    if (ok !== 1) return { ok: false, reason: 'name_taken' };
    // the global entries after the team's write (see the header); its records are not published
    // yet: the first periodic check comes one interval later (POST /domains/:id/verify checks now)
    await this.scheduleCheck(teamId, id, nowMs + this.checkIntervalMs);
    // the first team to name a return-path domain routes it until another proves control of the
    // domain (verification, below): a later unverified claim must not divert the first's bounces
    await this.redis.hsetnx(this.keys.returnPathDomains(), returnPathDomain(domain), teamId);
    return { ok: true, domain };
  }

  async get(teamId: string, domainId: string): Promise<DomainRecordSet | null> {
    if (!UUID_RE.test(domainId)) return null;
    const r = await this.redis.hgetall(this.keys.domain(teamId, idKey(domainId)));
    return r.id ? toDomain(r) : null;
  }

  async byName(teamId: string, name: string): Promise<DomainRecordSet | null> {
    const id = await this.redis.hget(this.keys.domainNames(teamId), name);
    return id ? this.get(teamId, id) : null;
  }

  async list(teamId: string, page: PageRequest): Promise<Page<DomainRecordSet> | null> {
    const keyOf = (id: string) => this.keys.domain(teamId, id);
    return pageHashes(this.redis, 'DomainsStore.list', this.keys.domains(teamId), page, keyOf, toDomain);
  }

  /** Every domain of the team, newest first (Resend lists domains without a limit as all). */
  async all(teamId: string): Promise<DomainRecordSet[]> {
    const count = await this.redis.zcard(this.keys.domains(teamId));
    const page = await this.list(teamId, { limit: Math.max(1, count) });
    return page?.items ?? [];
  }

  async update(
    teamId: string,
    domainId: string,
    change: DomainChange,
    event: DomainEventData,
  ): Promise<DomainRecordSet | null> {
    if (!UUID_RE.test(domainId)) return null;
    const key = this.keys.domain(teamId, idKey(domainId));
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const raw = await this.redis.hgetall(key);
      if (!raw.id) return null;
      const current = toDomain(raw);
      const next = change(current);
      if (next === 'unchanged') return current;
      const moved = next.updated_at !== current.updated_at;
      const res = await this.redis.petrelUpdateDomain(
        key,
        this.keys.events(teamId),
        raw.rev ?? '0',
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        moved ? teamEventJson('domain.updated', teamId, event(next), Date.parse(next.updated_at)) : '',
        ...domainPairs(next),
      );
      if (res === 1) {
        this.sending.delete(sendingKey(teamId, next.name));
        // a verified domain's team has shown it controls the domain's DNS (its DKIM key and the
        // return-path MX are published): the return path routes to it from now on
        if (next.status === 'verified' && current.status !== 'verified')
          await this.redis.hset(this.keys.returnPathDomains(), returnPathDomain(next), teamId);
        return next;
      }
      if (res === -1) return null;
    }
    throw new Error(`domain ${domainId}: too many concurrent updates`);
  }

  async remove(teamId: string, domainId: string, event: DomainEventData): Promise<DomainRecordSet | null> {
    if (!UUID_RE.test(domainId)) return null;
    const id = idKey(domainId);
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const raw = await this.redis.hgetall(this.keys.domain(teamId, id));
      if (!raw.id) return null;
      const current = toDomain(raw);
      const nowMs = this.clock.now();
      const res = await this.redis.petrelDeleteDomain(
        ...this.domainKeys(teamId, id),
        id,
        current.name,
        raw.rev ?? '0',
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        teamEventJson('domain.deleted', teamId, event(current), nowMs),
      );
      if (res === 1) {
        this.sending.delete(sendingKey(teamId, current.name));
        await this.redis.zrem(this.keys.domainChecks(), checkMember(teamId, id));
        const rp = returnPathDomain(current);
        if ((await this.redis.hget(this.keys.returnPathDomains(), rp)) === teamId) {
          await this.redis.hdel(this.keys.returnPathDomains(), rp);
        }
        return current;
      }
      if (res === -1) return null;
    }
    throw new Error(`domain ${domainId}: too many concurrent updates`);
  }

  // ---------------------------------------------------------------------------------------------
  // Periodic checks (the scheduler)

  /** Look the domain's records up again at `atMs`. */
  async scheduleCheck(teamId: string, domainId: string, atMs: number): Promise<void> {
    await this.redis.zadd(this.keys.domainChecks(), atMs, checkMember(teamId, domainId));
  }

  /** Domains whose check is due at `nowMs`, oldest first, at most `limit`. */
  async dueChecks(nowMs: number, limit: number): Promise<{ teamId: string; domainId: string }[]> {
    const members = await this.redis.zrangebyscore(
      this.keys.domainChecks(),
      '-inf',
      nowMs,
      'LIMIT',
      0,
      limit,
    );
    return members.flatMap((m) => {
      const [teamId, domainId] = m.split(' ');
      return teamId && domainId ? [{ teamId, domainId }] : [];
    });
  }

  /** Forget a scheduled check (its domain is gone). */
  async dropCheck(teamId: string, domainId: string): Promise<void> {
    await this.redis.zrem(this.keys.domainChecks(), checkMember(teamId, domainId));
  }

  /**
   * The team whose domain has `domain` as its return-path subdomain (`send.example.com`), or
   * null: mail to such an address is a bounce or a report about one of its emails (VERP).
   */
  async returnPathTeam(domain: string): Promise<string | null> {
    return this.redis.hget(this.keys.returnPathDomains(), domain.toLowerCase());
  }

  // ---------------------------------------------------------------------------------------------
  // Sending (the worker's sign stage)

  /** The from-domain with its keys decrypted, cached per process (see the options). */
  async forSending(teamId: string, name: string): Promise<SendingDomain | null> {
    const key = sendingKey(teamId, name);
    const hit = this.sending.get(key);
    if (hit) return hit.value;
    const id = await this.redis.hget(this.keys.domainNames(teamId), name);
    const raw = id ? await this.redis.hgetall(this.keys.domain(teamId, id)) : {};
    const value = raw.id ? this.sendingDomain(teamId, raw, await this.requireCipher()) : null;
    this.sending.set(key, { value });
    return value;
  }

  private sendingDomain(teamId: string, raw: Record<string, string>, cipher: DomainKeyCipher): SendingDomain {
    const domain = toDomain(raw);
    const encrypted = JSON.parse(raw.private_keys || '{}') as Record<string, string>;
    // RSA first: a verifier that stops at the first signature it can check sees the usual kind
    const ordered = [...domain.dkim].sort((a, b) =>
      a.algorithm === b.algorithm ? 0 : a.algorithm === 'rsa-sha256' ? -1 : 1,
    );
    return {
      id: domain.id,
      name: domain.name,
      returnPathDomain: returnPathDomain(domain),
      tls: domain.tls,
      verified: sendingVerified(domain),
      keys: ordered.flatMap((k) => {
        const sealed = encrypted[k.selector];
        if (!sealed) return [];
        const privateKeyPem = cipher.decrypt(sealed, keyContext(teamId, domain.id, k.selector));
        return [{ selector: k.selector, algorithm: k.algorithm, privateKeyPem }];
      }),
    };
  }

  /** The keys of a domain's create and delete scripts: its record, the listing, the names, the events. */
  private domainKeys(teamId: string, id: string): [string, string, string, string] {
    const k = this.keys;
    return [k.domain(teamId, id), k.domains(teamId), k.domainNames(teamId), k.events(teamId)];
  }

  private async requireCipher(): Promise<DomainKeyCipher> {
    if (!this.cipher) throw new Error('DomainsStore: no key cipher configured (domainKeySecret)');
    return typeof this.cipher === 'function' ? this.cipher() : this.cipher;
  }
}

/** The additional data a private key is sealed with: it only opens for its team, domain and selector. */
const keyContext = (teamId: string, domainId: string, selector: string): string =>
  `${teamId}:${domainId}:${selector}`;
const checkMember = (teamId: string, domainId: string): string => `${teamId} ${domainId}`;
const sendingKey = (teamId: string, name: string): string => `${teamId}\n${name}`;

function domainPairs(d: DomainRecordSet): string[] {
  return [
    'id',
    d.id,
    'name',
    d.name,
    'region',
    d.region,
    'custom_return_path',
    d.custom_return_path,
    'capabilities',
    JSON.stringify(d.capabilities),
    'open_tracking',
    d.open_tracking ? '1' : '0',
    'click_tracking',
    d.click_tracking ? '1' : '0',
    'tls',
    d.tls,
    'tracking_subdomain',
    d.tracking_subdomain ?? '',
    'dkim',
    JSON.stringify(d.dkim),
    'checks',
    JSON.stringify(d.checks),
    'status',
    d.status,
    'created_at',
    d.created_at,
    'updated_at',
    d.updated_at,
    'checked_at',
    d.checked_at ?? '',
  ];
}

function toDomain(r: Record<string, string>): DomainRecordSet {
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    region: (r.region ?? 'us-east-1') as DomainRegion,
    custom_return_path: r.custom_return_path ?? 'send',
    capabilities: JSON.parse(
      r.capabilities || '{"sending":"enabled","receiving":"disabled"}',
    ) as DomainCapabilities,
    open_tracking: r.open_tracking === '1',
    click_tracking: r.click_tracking === '1',
    tls: (r.tls ?? 'opportunistic') as DomainTls,
    tracking_subdomain: r.tracking_subdomain || null,
    dkim: JSON.parse(r.dkim || '[]') as DkimPublicKey[],
    checks: JSON.parse(r.checks || '{}') as Record<string, DomainRecordStatus>,
    status: (r.status ?? 'not_started') as DomainStatus,
    created_at: r.created_at ?? '',
    updated_at: r.updated_at ?? '',
    checked_at: r.checked_at || null,
  };
}

/**
 * The composition root of a Petrel process: from its parsed configuration, the Redis connections
 * (one server or a Redis Cluster, `createRedis`), every store, queue and secret, and the accept
 * path, each built once and only when the process first asks for it. An app's wiring asks the
 * runtime for what it uses; the all-in-one process hands one runtime to every app it starts.
 * Closing the runtime closes the queues it opened, then its connections.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { AcceptPorts, Preparer } from '@petrel/core';
import {
  DomainKeyCipher,
  IdempotencyStore,
  Keys,
  OutboxStore,
  createRedis,
  domainKeySecret,
  pingRedis,
  unsubscribeSecret,
  type RedisClient,
  type RedisProfile,
} from '@petrel/store';
import { logConnectionError } from '@petrel/observability';
import { acceptanceStages, acceptancePorts, type StageOverrides } from './acceptance.js';
import type { RuntimeConfig } from './config.js';
import { lazily, memoAsync } from './lazy.js';
import { QUEUES, type Queues } from './queues.js';
import { STORES, type StoreContext, type Stores } from './stores.js';

/** How long closing waits for a connection's QUIT before dropping it. */
const QUIT_WAIT_MS = 5_000;

/** The secrets kept in Redis when the configuration names none (generated once, SET NX). */
export type SharedSecret = 'unsubscribe' | 'domainKey';

export class Runtime {
  readonly keys: Keys;
  private readonly connections = new Map<string, RedisClient>();
  private readonly closers: (() => Promise<void>)[] = [];
  private readonly overs = new Map<string, Stores>();
  private readonly acceptances = new Map<number | undefined, Promise<AcceptPorts>>();
  private preparerBuilt: Preparer | undefined;
  /** Every store, over the process's command connection. */
  readonly stores: Stores;
  /** Every queue a process adds jobs to (a worker's own blocking connection is `connection()`). */
  readonly queues: Queues;
  /** A secret of the deployment, read (or generated) once per process. */
  readonly secret: (name: SharedSecret) => Promise<string>;

  constructor(
    readonly config: RuntimeConfig & { REDIS_URL: string },
    /** The process's name: its connections are `petrel-<name>[-<purpose>]` in CLIENT LIST. */
    readonly name: string,
  ) {
    this.keys = new Keys(config.REDIS_KEY_PREFIX);
    this.secret = memoAsync((name: SharedSecret) =>
      name === 'unsubscribe'
        ? unsubscribeSecret(this.redis, this.keys, config.UNSUBSCRIBE_SECRET)
        : domainKeySecret(this.redis, this.keys, config.DOMAIN_KEY_SECRET),
    );
    this.queues = lazily(
      QUEUES,
      () => ({ redis: this.redis, keys: this.keys, config }),
      (q) => this.closers.push(() => (q as { close(): Promise<void> }).close()),
    );
    this.stores = this.over('command');
  }

  /** The process's command connection, opened on first use. */
  get redis(): RedisClient {
    return this.connection('command', 'command');
  }

  /**
   * A connection of its own for `purpose` (BullMQ workers' `bull`, a blocking stream read…),
   * opened on first use; `command` is the process's shared command connection.
   */
  connection(purpose: string, profile: RedisProfile = 'blocking'): RedisClient {
    let c = this.connections.get(purpose);
    if (!c) {
      const name = purpose === 'command' ? `petrel-${this.name}` : `petrel-${this.name}-${purpose}`;
      c = createRedis(this.config.REDIS_URL, profile, name, logConnectionError(name));
      this.connections.set(purpose, c);
    }
    return c;
  }

  /**
   * The stores over a connection of their own (`purpose`), so one part's large writes never
   * queue in front of another's small ones (the webhook dispatcher's attempts), or a blocking
   * read waits on a connection no command needs.
   */
  over(purpose: string, profile: RedisProfile = 'command'): Stores {
    let stores = this.overs.get(purpose);
    if (!stores) {
      const cipher = memoAsync(async () => new DomainKeyCipher(await this.secret('domainKey')));
      const ctx = (): StoreContext => ({
        redis: this.connection(purpose, profile),
        keys: this.keys,
        config: this.config,
        stores: stores!,
        queues: this.queues,
        domainCipher: () => cipher(undefined),
      });
      stores = lazily(STORES, ctx);
      this.overs.set(purpose, stores);
    }
    return stores;
  }

  /**
   * POST /emails' acceptance stages over this process's stores, built once; with `overrides`, a
   * variant for a producer of its own emails (a TLS report counts in no quota).
   */
  preparer(overrides?: StageOverrides): Preparer {
    const s = this.stores;
    const stores = { templates: s.templates, topics: s.topics, domains: s.domains, limits: s.limits };
    if (overrides) return acceptanceStages(this.config, stores, overrides);
    this.preparerBuilt ??= acceptanceStages(this.config, stores);
    return this.preparerBuilt;
  }

  /**
   * The accept path's ports (records, outbox, send jobs), once per Idempotency-Key lock: the
   * process's IDEMPOTENCY_LOCK_MS by default; a worker's steps hold a key for less.
   */
  acceptance(opts: { lockMs?: number; preparer?: Preparer } = {}): Promise<AcceptPorts> {
    const make = async () => {
      const own = opts.lockMs !== undefined;
      const idempotency = own
        ? new IdempotencyStore(this.redis, this.keys, opts.lockMs)
        : this.stores.idempotency;
      await this.queues.send.ready();
      return acceptancePorts({
        emails: this.stores.emails,
        idempotency,
        outbox: own ? new OutboxStore(this.redis, this.keys, idempotency) : this.stores.outbox,
        queues: this.queues.send,
        preparer: opts.preparer ?? this.preparer(),
      });
    };
    if (opts.preparer) return make();
    let p = this.acceptances.get(opts.lockMs);
    if (!p) {
      p = make();
      this.acceptances.set(opts.lockMs, p);
      p.catch(() => this.acceptances.delete(opts.lockMs));
    }
    return p;
  }

  /** Redis answers PING (the /ready check). */
  ready(): Promise<boolean> {
    return pingRedis(this.redis);
  }

  /**
   * The queues this process opened, then its connections. A QUIT that finds its node gone (a
   * cluster failover) is not waited for past QUIT_WAIT_MS: the connection is dropped instead.
   */
  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close().catch(() => undefined);
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(
      all.map(async (c) => {
        const quit = c.quit().then(
          () => 'quit' as const,
          () => 'quit' as const,
        );
        if ((await Promise.race([quit, delay(QUIT_WAIT_MS, 'late' as const, { ref: false })])) === 'late')
          c.disconnect();
      }),
    );
  }
}

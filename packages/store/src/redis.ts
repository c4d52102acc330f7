/**
 * ioredis connection factories, for one Redis server or a Redis Cluster. Two profiles:
 * - `command`: for request handlers and stores. Fails a command fast when Redis is down
 *   (the API then answers 503 instead of hanging) and reconnects on its own.
 * - `blocking`: for BullMQ workers (`maxRetriesPerRequest: null`, as BullMQ requires).
 */
import { Cluster, Pipeline, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

export type RedisProfile = 'command' | 'blocking';

/** A connection to one Redis server or to a Redis Cluster: what every store and app takes. */
export type RedisClient = Redis | Cluster;

/** Where REDIS_URL points (its grammar is validated at start-up by packages/config). */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | {
      kind: 'cluster';
      /** Some nodes of the cluster; the client learns the rest from them (CLUSTER SLOTS). */
      nodes: { host: string; port: number }[];
      username?: string;
      password?: string;
      tls: boolean;
    };

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^@/]+)\/?$/;

/**
 * `redis://…` / `rediss://…` is one server (ioredis reads the URL itself);
 * `redis+cluster://[user[:password]@]host:port,host:port` (`rediss+cluster://` for TLS) is a
 * cluster. Throws on a cluster URL it cannot read.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const m = CLUSTER_URL.exec(url);
  if (!m) {
    if (/^[a-z+]*cluster:/i.test(url)) throw new Error(`not a Redis Cluster URL: ${redactUrl(url)}`);
    return { kind: 'server', url };
  }
  const [, scheme, userinfo, hosts] = m;
  const nodes = hosts!.split(',').map((node) => {
    const at = node.lastIndexOf(':');
    const host = node.slice(0, at).replace(/^\[(.*)\]$/, '$1');
    const port = Number(node.slice(at + 1));
    if (at < 1 || !host || !Number.isInteger(port) || port < 1 || port > 65_535)
      throw new Error(`a Redis Cluster node must be host:port, not '${node}' (in ${redactUrl(url)})`);
    return { host, port };
  });
  const target: RedisTarget = { kind: 'cluster', nodes, tls: scheme === 'rediss' };
  if (userinfo) {
    const colon = userinfo.indexOf(':');
    const [user, password] =
      colon === -1 ? [userinfo, ''] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)];
    if (user) target.username = decodeURIComponent(user);
    if (password) target.password = decodeURIComponent(password);
  }
  return target;
}

/** `url` with its password replaced, for error messages. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Reconnection delay of a server, and of a whole cluster once every node is lost: never gives up. */
const reconnectDelay = (times: number) => Math.min(times * 100, 2_000);

export function createRedis(
  url: string,
  profile: RedisProfile = 'command',
  name?: string,
  /** Connection errors (ioredis reconnects by itself); apps log them. */
  onError: (err: Error) => void = () => undefined,
): RedisClient {
  const target = parseRedisUrl(url);
  const perProfile: RedisOptions =
    profile === 'blocking'
      ? { maxRetriesPerRequest: null }
      : { maxRetriesPerRequest: 1, commandTimeout: 5_000 };
  const redis =
    target.kind === 'server'
      ? createServerClient(target.url, name, perProfile)
      : createCluster(target, profile, name, perProfile);
  redis.on('error', onError);
  return sharedBatchCommands(redis);
}

/** The connection internals {@link sharedBatchCommands} works with (ioredis' Commander). */
interface CommanderInternals {
  scriptsSet: Record<string, unknown>;
  addedBuiltinSet: Set<string>;
  defineCommand(...args: unknown[]): unknown;
  addBuiltinCommand(...args: unknown[]): unknown;
  pipeline(...args: unknown[]): unknown;
  multi(...args: unknown[]): unknown;
  [command: string]: unknown;
}

const withSharedCommands = new WeakSet<object>();
const NO_SCRIPTS: Record<string, unknown> = Object.freeze({});
const NO_BUILTINS = new Set<string>();

/**
 * Makes `redis`'s pipelines and MULTIs find its script commands on a prototype they share instead
 * of each getting its own copy. ioredis' Pipeline constructor copies every command defined on its
 * connection (`defineCommand`: the store's scripts and BullMQ's, ~150, each with its `…Buffer`
 * twin) onto every new batch as own properties: ~300 writes that turn the object into a
 * dictionary, about 100 µs of CPU per batch on the bench machine, and acceptance makes three
 * batches per request (records, BullMQ's addBulk, outbox clear). Here the batch is built while
 * the connection shows no commands, then gets a prototype (one per connection, rebuilt when a
 * command is defined) that holds the very functions ioredis would have copied. They run with
 * the batch as `this` as before, so a script queued on a batch still goes out as EVALSHA with
 * ioredis' EVAL fallback on NOSCRIPT, and a cluster batch is still routed by its keys. A batch
 * given its commands at creation (`pipeline([[…]])`) is built the ordinary way. Idempotent.
 */
export function sharedBatchCommands<T extends RedisClient>(redis: T): T {
  if (withSharedCommands.has(redis)) return redis;
  withSharedCommands.add(redis);
  const conn = redis as unknown as CommanderInternals;
  let proto: object | undefined;
  const commandsProto = (): object => {
    if (proto) return proto;
    const p = Object.create(Pipeline.prototype) as Record<string, unknown>;
    for (const name of [...Object.keys(conn.scriptsSet), ...conn.addedBuiltinSet]) {
      p[name] = conn[name];
      p[`${name}Buffer`] = conn[`${name}Buffer`];
    }
    return (proto = p);
  };
  for (const method of ['defineCommand', 'addBuiltinCommand'] as const) {
    const define = conn[method];
    conn[method] = function (this: unknown, ...args: unknown[]) {
      proto = undefined; // a new command: the next batch's prototype includes it
      return define.apply(this, args);
    };
  }
  for (const method of ['pipeline', 'multi'] as const) {
    const build = conn[method];
    conn[method] = function (this: CommanderInternals, ...args: unknown[]) {
      if (Array.isArray(args[0])) return build.apply(this, args);
      const { scriptsSet, addedBuiltinSet } = this;
      this.scriptsSet = NO_SCRIPTS;
      this.addedBuiltinSet = NO_BUILTINS;
      let batch: unknown;
      try {
        batch = build.apply(this, args);
      } finally {
        this.scriptsSet = scriptsSet;
        this.addedBuiltinSet = addedBuiltinSet;
      }
      // `multi({ pipeline: false })` answers a promise, not a batch
      if (batch instanceof Pipeline) Object.setPrototypeOf(batch, commandsProto());
      return batch;
    };
  }
  return redis;
}

function createServerClient(url: string, name: string | undefined, perProfile: RedisOptions): Redis {
  return new Redis(url, {
    enableReadyCheck: true,
    connectionName: name,
    retryStrategy: reconnectDelay,
    lazyConnect: false,
    enableOfflineQueue: true,
    ...perProfile,
  });
}

/**
 * A Redis Cluster client (ioredis `Cluster`): commands go to the master of their key's slot;
 * `MOVED` and `ASK` redirections are followed by ioredis itself (Redis Cluster specification,
 * "Redirection and resharding"), and a command that meets a failover (its master's connection
 * closed, `CLUSTERDOWN`, `TRYAGAIN`) is retried after a pause and a refresh of the slot map, at
 * most `maxRedirections` times. So a failover that completes within a few seconds is invisible,
 * and a longer one makes a `command` connection fail (the API answers 503) while the BullMQ
 * workers wait it out.
 */
function createCluster(
  target: Extract<RedisTarget, { kind: 'cluster' }>,
  profile: RedisProfile,
  name: string | undefined,
  perProfile: RedisOptions,
): Cluster {
  const options: ClusterOptions = {
    // `ready` only once CLUSTER INFO reports cluster_state:ok (every slot served).
    enableReadyCheck: true,
    // Replication is asynchronous: a read from a replica may miss the write just made.
    scaleReads: 'master',
    // The slot map is asked of one node at a time; a busy node may take more than the 1 s default.
    slotsRefreshTimeout: 2_000,
    clusterRetryStrategy: reconnectDelay,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    maxRedirections: 16,
    enableOfflineQueue: true,
    lazyConnect: false,
    // ioredis' advice for TLS clusters whose certificates name the configured host (e.g. AWS
    // ElastiCache): keep the host name instead of connecting to the resolved address.
    ...(target.tls && { dnsLookup: (address, callback) => callback(null, address) }),
    redisOptions: {
      connectionName: name,
      ...(target.username && { username: target.username }),
      ...(target.password && { password: target.password }),
      ...(target.tls && { tls: {} }),
      ...perProfile,
    },
  };
  const cluster = closesCleanly(new Cluster(target.nodes, options));
  if (profile === 'command') {
    // Commands wait for the first connection (start-up); after that a command sent while the
    // cluster is lost fails at once instead of queueing until it returns, as a `command`
    // connection to one server does after its single retry. ioredis reads this option on every
    // command.
    cluster.once('ready', () => {
      cluster.options.enableOfflineQueue = false;
    });
  }
  return cluster;
}

/**
 * Makes `disconnect()`/`quit()` of a cluster client reach `end`, whatever refresh or reconnect is
 * in flight. BullMQ waits for that `end` on its blocking connection (a duplicate of this client)
 * both in Worker.close() and when it resets a blocking connection whose BZPOPMIN went quiet; in
 * ioredis 6 it may never come after a failover, when slot refreshes and reconnects run all the
 * time, and then a worker can neither close nor fetch jobs again: the cluster chaos test saw the
 * send workers of the failed-over shards park for minutes with jobs waiting. Three ways it is
 * lost, each closed again here:
 *  - a CLUSTER SLOTS answer applied after `disconnect()` emptied the pool puts nodes back, so the
 *    pool never drains;
 *  - that answer, when a connect() was under way, revives the client (`connect`/`ready`);
 *  - the pool drains to `close`, but the once-listener that turns `close` into `end` was spent by
 *    an earlier close, so nothing ends the client.
 * "Asked to close" is tracked here (ioredis' own flag is reset by that late refresh).
 */
export function closesCleanly(cluster: Cluster): Cluster {
  const internals = cluster as unknown as { manuallyClosing: boolean; handleCloseEvent(): void };
  let closing = false;
  const disconnect = cluster.disconnect.bind(cluster);
  const quit = cluster.quit.bind(cluster);
  const connect = cluster.connect.bind(cluster);
  cluster.disconnect = (reconnect = false) => {
    if (!reconnect) closing = true;
    disconnect(reconnect);
  };
  cluster.quit = ((callback) => {
    closing = true;
    return quit(callback);
  }) as Cluster['quit'];
  cluster.connect = () => {
    closing = false;
    return connect();
  };
  // after ioredis has finished its own reaction to the event
  const settle = () =>
    setImmediate(() => {
      if (!closing || cluster.status === 'end') return;
      if (cluster.status === 'close') {
        // what ioredis does on a manual close: no reconnect, `end`, queued commands failed
        internals.manuallyClosing = true;
        internals.handleCloseEvent();
      } else if (cluster.status !== 'disconnecting' || cluster.nodes().length > 0) disconnect();
    });
  for (const event of ['+node', 'close', 'connect', 'ready']) cluster.on(event, settle);
  const duplicate = cluster.duplicate.bind(cluster);
  cluster.duplicate = ((...args: Parameters<Cluster['duplicate']>) =>
    closesCleanly(duplicate(...args))) as Cluster['duplicate'];
  return cluster;
}

/**
 * True when Redis answers within `timeoutMs`: a server its PING, a cluster CLUSTER INFO with
 * `cluster_state:ok` (every slot served; one live node alone is not a working cluster).
 */
export async function pingRedis(redis: RedisClient, timeoutMs = 1_000): Promise<boolean> {
  try {
    const probe =
      redis instanceof Cluster
        ? redis.cluster('INFO').then((info) => /cluster_state:ok/.test(String(info)))
        : redis.ping().then((res) => res === 'PONG');
    return await Promise.race([
      probe,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref()),
    ]);
  } catch {
    return false;
  }
}

/**
 * What ioredis and Redis say while Redis cannot take commands: down, restarting, out of memory
 * (also inside a transaction it then aborts), refusing writes after a failed persist; and, on a
 * cluster, a failover in progress — no node can give the slot map, the slot's master is gone or
 * not yet replaced (`CLUSTERDOWN`), a slot in migration (`TRYAGAIN`), a demoted master refusing
 * writes (`READONLY`), redirections that never settled, or the cluster lost as a whole.
 */
const UNAVAILABLE = new RegExp(
  [
    "Connection is closed|Stream isn't writeable|max retries per request|Command timed out",
    'ECONNREFUSED|ECONNRESET|OOM command not allowed|MISCONF|LOADING',
    "CLUSTERDOWN|TRYAGAIN|READONLY|Failed to refresh slots cache|All nodes failed|None of startup nodes is available|Cluster isn't ready|Too many Cluster redirections",
  ].join('|'),
  'i',
);

/**
 * True for the errors ioredis raises while Redis cannot take commands: the caller may retry
 * later; nothing is wrong with the command itself.
 */
export function isRedisUnavailable(err: unknown): boolean {
  const e = (err ?? {}) as { message?: unknown; code?: unknown; previousErrors?: unknown };
  // A transaction Redis refused to queue (EXECABORT) carries the errors of its commands, e.g. OOM.
  if (Array.isArray(e.previousErrors) && e.previousErrors.some((p) => isRedisUnavailable(p))) return true;
  const m = typeof e.message === 'string' ? e.message : '';
  return UNAVAILABLE.test(m) || e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET';
}

export type { Cluster, Redis };

/**
 * Environment fragments. Each app composes the fragments it needs into one zod schema in its
 * own `config.ts` and parses `process.env` once at start-up with `loadConfig`; no other file
 * reads the environment.
 */
import { z } from 'zod';
import { isIP } from 'node:net';

/** A boolean variable: 1/true/yes/on or 0/false/no/off (empty is false). */
export const boolEnv = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** A size in bytes: a positive whole number, `defaultBytes` when unset. */
const bytesEnv = (defaultBytes: number) => z.coerce.number().int().positive().default(defaultBytes);
const port = z.coerce.number().int().min(0).max(65_535);
/** A retry ladder: whole seconds, comma separated (`example` shows one in the error). */
const secondsLadder = (example: string) =>
  z
    .string()
    .regex(/^\d+(,\d+)*$/, `must be comma-separated whole seconds, e.g. ${example}`)
    .optional();
/** A multiplier of waits (1: real time; tests compress time with e.g. 0.001). */
const timeScale = z.coerce.number().positive().default(1);

/** A node of a Redis Cluster: `host:port`, the host a name, an IPv4 address or a bracketed IPv6 one. */
const CLUSTER_NODE = String.raw`(?:\[[0-9a-fA-F:.]+\]|[^\s,:@/\[\]]+):\d{1,5}`;
const CLUSTER_NODES = new RegExp(`^${CLUSTER_NODE}(?:,${CLUSTER_NODE})*$`);
/** `redis+cluster://[user[:password]@]host:port,host:port…` (`rediss+cluster://` for TLS). */
const CLUSTER_URL = new RegExp(`^rediss?\\+cluster://(?:[^@/\\s]*@)?${CLUSTER_NODE}(?:,${CLUSTER_NODE})*/?$`);

/** True for a REDIS_URL Petrel can connect to (the grammar createRedis in packages/store parses). */
export function isRedisUrl(url: string): boolean {
  if (CLUSTER_URL.test(url)) return true;
  try {
    const u = new URL(url);
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export const redisEnv = {
  /**
   * Redis connection URL: `redis://[user:password@]host:port[/db]` (`rediss://` for TLS) for one
   * server, or `redis+cluster://[user:password@]host1:port,host2:port` (`rediss+cluster://`) for a
   * Redis Cluster, listing some of its nodes (the client discovers the others). Unset in
   * all-in-one mode: an embedded redis-server is started.
   */
  REDIS_URL: z
    .string()
    .refine(isRedisUrl, {
      message:
        'must be redis://host:port or rediss://host:port (one server), or redis+cluster://host1:port,host2:port or rediss+cluster://… (a Redis Cluster)',
    })
    .optional(),
  /**
   * The nodes of a Redis Cluster, `host1:port,host2:port`: the same as
   * REDIS_URL=redis+cluster://host1:port,host2:port (set one of the two).
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(CLUSTER_NODES, 'must be host:port pairs separated by commas, e.g. 10.0.0.1:7000,10.0.0.2:7000')
    .optional(),
  /** Prefix of every Petrel key, so tests and tenants of one Redis can be kept apart. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .default('pt'),
};

/** Most shards a send lane may have: each is a BullMQ Worker (and connection) per worker process. */
export const MAX_QUEUE_SHARDS = 64;
const shardCount = z.coerce.number().int().min(1).max(MAX_QUEUE_SHARDS);

/** The send queues (BullMQ) of every app that enqueues, consumes or counts send jobs. */
export const queueEnv = {
  /**
   * Queues per send lane. Each is its own hash slot, so on a Redis Cluster a lane's load spreads
   * over that many masters (a multiple of the number of masters spreads it evenly). Every API,
   * worker and scheduler of a deployment must use the same value.
   */
  QUEUE_SHARDS: shardCount.default(1),
  /**
   * While QUEUE_SHARDS changes: the value before the change, or `unsharded` for the single queue
   * per lane of releases before sharding. Workers also consume those queues and cancel /
   * reschedule also look there, so no job queued before the change is stranded. Remove it once
   * the scheduler logs that those queues are drained.
   */
  QUEUE_SHARDS_PREVIOUS: z.union([z.literal('unsharded'), shardCount]).optional(),
};

export const logEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/**
 * Default port of each process's health + /metrics server, so the processes of one host do not
 * collide (9464 is the port OpenTelemetry's Prometheus exporter made customary; the all-in-one
 * process serves the API's).
 */
export const METRICS_PORTS = {
  api: 9464,
  worker: 9465,
  scheduler: 9466,
  petrel: 9464,
  smtp: 9468,
  webhooks: 9467,
} as const;

/**
 * Timeouts of every HTTP server a process runs — the API and each process's health + /metrics
 * server — applied in one place (`listenHttp` in packages/observability). Node's defaults let a
 * client that declares a body and then stalls hold a connection for 5 minutes (requestTimeout
 * 300 s); these bound it to tens of seconds.
 */
export const httpServerEnv = {
  /**
   * Longest a client may take to send one whole request, headers and body, in ms; then 408 and
   * the connection is closed (Node's `server.requestTimeout`). The time to handle the request is
   * not counted. It bounds the upload time of the largest bodies too (API_BODY_LIMIT_BYTES,
   * CONTACT_IMPORT_MAX_BYTES): 60 s moves 60 MiB at about 8 Mbit/s; raise it for larger
   * uploads over slower links.
   */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),
  /**
   * Longest a client may take to send a request's headers, in ms (Node's `server.headersTimeout`;
   * at most HTTP_REQUEST_TIMEOUT_MS, which Node requires). Headers are a few KiB: a client
   * slower than this is holding the connection on purpose.
   */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(15_000),
  /**
   * How long an idle keep-alive connection stays open after its last response, in ms (Node's
   * `server.keepAliveTimeout`). Keep it above the idle timeout of a load balancer in front (AWS
   * ALB: 60 s by default), so the balancer, not Petrel, closes idle connections: a connection
   * Petrel closes while the balancer sends a request on it is a 502 (AWS, "Edit attributes for
   * your Application Load Balancer", Connection idle timeout).
   */
  HTTP_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(65_000),
};

/**
 * `METRICS_PORT` for `app`, defaulting to its entry in {@link METRICS_PORTS}, and the timeouts of
 * the process's HTTP servers ({@link httpServerEnv}): every process runs at least that one.
 */
export function metricsEnv(app: keyof typeof METRICS_PORTS) {
  return {
    ...httpServerEnv,
    /** Port of the health + /metrics server of this process; 0 picks a free port. */
    METRICS_PORT: port.default(METRICS_PORTS[app]),
    /**
     * Address the health + /metrics server listens on. Loopback by default (metrics stay on the
     * machine); `0.0.0.0` in a container, so kubelet probes and Prometheus reach it.
     */
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  };
}

/** A domain name as mail uses it: letters, digits, hyphens, dots; at least one dot. */
const DOMAIN_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i;

/**
 * The domain of the return path (SMTP MAIL FROM) of every email sent: `bounces+<emailId>@` it,
 * so bounces and complaints come back to the inbound server naming their email. Its MX must
 * point at SMTP_INBOUND_PORT (port 25 on the internet). Unset: the From address is the return
 * path and nothing is processed.
 */
const bounceDomainEnv = z
  .string()
  .regex(DOMAIN_NAME, 'must be a domain name, e.g. bounces.example.com')
  .transform((d) => d.toLowerCase())
  .optional();

/** Links Petrel puts into emails (unsubscribe), read by the API that answers them and the worker that writes them. */
export const linksEnv = {
  /**
   * Public base URL of the API as recipients reach it, e.g. https://mail.example.com: unsubscribe
   * links point under it. Defaults to http://localhost:PORT (the all-in-one process fills in its
   * API's port; a worker alone falls back to port 3000 and says so in its log).
   */
  PUBLIC_URL: z.string().url().optional(),
  /**
   * Key of the HMAC that signs unsubscribe links (at least 32 characters). When unset, one is
   * generated once and kept in Redis, shared by every process of the deployment.
   */
  UNSUBSCRIBE_SECRET: z.string().min(32).optional(),
  BOUNCE_DOMAIN: bounceDomainEnv,
};

/** The public base URL: PUBLIC_URL, or the API on localhost. */
export function publicUrl(config: { PUBLIC_URL?: string | undefined; PORT?: number }): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT ?? 3000}`).replace(/\/+$/, '');
}

export const apiEnv = {
  PORT: port.default(3000),
  ...linksEnv,
  /** When set, a full_access key with exactly this token exists for the default team. */
  BOOTSTRAP_API_KEY: z.string().min(8).optional(),
  /** Largest accepted request body, in bytes (attachments travel base64 inside it). */
  API_BODY_LIMIT_BYTES: bytesEnv(60 * 1024 * 1024),
  /** Largest accepted body on the batch endpoint, in bytes. */
  API_BATCH_BODY_LIMIT_BYTES: bytesEnv(5 * 1024 * 1024),
  /**
   * How long an Idempotency-Key stays claimed by a request that has not finished. A request whose
   * API process died keeps its key locked this long; then a retry takes the claim over and
   * recomputes the same ids. Must exceed the slowest request (remote attachments: 15 s each).
   */
  IDEMPOTENCY_LOCK_MS: z.coerce.number().int().min(1_000).default(60_000),
  /**
   * Largest CSV file POST /contacts/imports accepts, in bytes (default 256 MiB, about 3 million
   * rows of a few columns; Resend documents 50 MB). A larger upload is refused with 413 as soon
   * as it passes the limit. The file is streamed into Redis in 256 KiB chunks, never held by the
   * API, so the limit bounds Redis memory per import, not the API's.
   */
  CONTACT_IMPORT_MAX_BYTES: bytesEnv(256 * 1024 * 1024),
};

export const smtpEnv = {
  /** Relay for outgoing mail, e.g. smtp://user:pass@relay:587. Unset in all-in-one mode: a local capture server. */
  SMTP_URL: z.string().url().optional(),
  SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  /**
   * Extra relay connections opened while answers are slow, so one slow 250 does not hold up the
   * messages queued behind it (default: SMTP_POOL_SIZE more; 0: never more than the pool).
   */
  SMTP_POOL_OVERFLOW: z.coerce.number().int().min(0).max(200).optional(),
  /** A send on its session this long counts as slow (opens an overflow connection). */
  SMTP_SLOW_ANSWER_MS: z.coerce.number().int().positive().default(1000),
  SMTP_CONNECTION_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  SMTP_SOCKET_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
};

/** `ip` or `ip:port` (IPv6 bracketed when it has a port: `[::1]:53`), as Resolver#setServers takes. */
const DNS_SERVER =
  /^(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|\[[0-9a-fA-F:.]+\](?::\d{1,5})?)$/;

/** The DNS the service queries itself (MX lookups of direct delivery, domain checks). */
export const dnsEnv = {
  /**
   * Comma-separated resolvers, e.g. `1.1.1.1,[2606:4700:4700::1111]:53`; unset: the system's
   * (/etc/resolv.conf). Tests point it at a local authoritative server.
   */
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .refine((list) => list.every((s) => DNS_SERVER.test(s)), 'must be comma-separated ip or ip:port'),
};

/**
 * How the worker hands mail over: `relay` sends every email through SMTP_URL; `direct` looks up
 * each recipient domain's MX (RFC 5321 section 5.1) and delivers to it, with a connection pool
 * and an adaptive concurrency limit per destination host.
 */
/**
 * A domain of the operator's whose `delivered@`, `bounced@`, `complained@`, `suppressed@`,
 * `delayed@` and `tempfail@` (with any `+label`) are simulated like Resend's `resend.dev` test
 * addresses, which are always simulated: no SMTP connection is made for them. One schema for
 * the worker (which simulates) and acceptance (which never refuses the domain).
 */
const simulatorDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+\.?$/, 'must be a domain name such as simulator.example.com')
  .optional();

export const deliveryEnv = {
  DELIVERY_MODE: z.enum(['relay', 'direct']).default('relay'),
  /** Port of the receiving MX hosts in direct mode (25; tests point it at a local sink). */
  DIRECT_SMTP_PORT: port.min(1).default(25),
  /** Ceiling of the adaptive concurrency limit per destination host (its connection pool's size). */
  DIRECT_MAX_CONNECTIONS_PER_HOST: z.coerce.number().int().min(1).max(100).default(10),
  /** Successful deliveries to a host that raise its limit by one after it was cut. */
  DIRECT_RECOVERY_SUCCESSES: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Destination hosts with an open pool (and a concurrency limit / metrics series) at once. */
  DIRECT_MAX_POOLS: z.coerce.number().int().min(1).max(10_000).default(200),
  /** A destination's pool unused this long is closed. */
  DIRECT_POOL_IDLE_MS: z.coerce.number().int().min(1_000).default(60_000),
  /** Longest a send waits for a free slot at its destination before it is deferred (retried later). */
  DIRECT_SLOT_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long an MX answer is reused (node's resolveMx reports no TTL). */
  DIRECT_MX_CACHE_TTL_S: z.coerce.number().int().min(0).max(86_400).default(300),
  /** The name in EHLO (RFC 5321 section 4.1.1.1: the sending host's FQDN); default the hostname. */
  DIRECT_HELO_NAME: z.string().min(1).optional(),
  SIMULATOR_DOMAIN: simulatorDomain,
};

/**
 * What acceptance refuses by recipient domain (core accept/stages/non-mail-domains.ts), in every
 * process that accepts emails (API, SMTP submission, the workers' automation emails).
 */
export const recipientDomainsEnv = {
  /**
   * true: a recipient at a domain reserved for tests and documentation (example.com/.net/.org,
   * .test, .example, .invalid, .localhost: RFC 2606, RFC 6761) is refused with a 422 naming the
   * field, except at resend.dev and SIMULATOR_DOMAIN. Off by default.
   */
  REFUSE_NON_MAIL_DOMAINS: boolEnv.default(false),
  SIMULATOR_DOMAIN: simulatorDomain,
};

/**
 * The SMTP submission server (apps/smtp): clients send mail over SMTP with an API key as the
 * password instead of calling POST /emails. Defaults are the unprivileged ports Resend also
 * offers (2587 STARTTLS, 2465 implicit TLS); put 587/465 in front with a port forward if needed.
 */
export const smtpSubmissionEnv = {
  /** Submission port (RFC 6409), STARTTLS required before AUTH; 0 picks a free port. */
  SMTP_SUBMISSION_PORT: port.default(2587),
  /** Implicit-TLS submission port (RFC 8314 section 3.3), or `off`; 0 picks a free port. */
  SMTP_SUBMISSION_TLS_PORT: z.union([z.literal('off'), port]).default(2465),
  /** Address the SMTP servers bind to. */
  SMTP_BIND_HOST: z.string().min(1).default('0.0.0.0'),
  /** Name in the greeting and EHLO reply, and the subject of a generated certificate. */
  SMTP_HOSTNAME: z.string().min(1).optional(),
  /**
   * PEM certificate chain and private key files for STARTTLS and implicit TLS. When both are
   * unset a self-signed certificate is generated at start (development: clients must skip
   * verification or trust it).
   */
  SMTP_TLS_CERT: z.string().min(1).optional(),
  SMTP_TLS_KEY: z.string().min(1).optional(),
  /** Largest message accepted, in bytes (advertised with SIZE, RFC 1870; 552 over it). */
  SMTP_SUBMISSION_MAX_BYTES: bytesEnv(60 * 1024 * 1024),
  /**
   * Failed AUTH attempts one remote address may make before each further attempt is delayed
   * (doubling, up to 30 s) and the connection is closed after it.
   */
  SMTP_AUTH_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
};

/** One entry of INBOUND_DOMAINS: a receiving domain and the team its mail goes to (null: the default team). */
export interface InboundDomain {
  domain: string;
  teamId: string | null;
}

/** `a.example,b.example=<teamId>` → entries; the syntax is checked by the schema below. */
export function parseInboundDomains(value: string): InboundDomain[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [domain = '', teamId] = entry.split('=').map((s) => s.trim());
      return { domain: domain.toLowerCase(), teamId: teamId || null };
    });
}

/** The inbound SMTP server (apps/smtp): receiving domains, bounces and complaints. */
export const smtpInboundEnv = {
  /** Port of the inbound (MX) server, or `off`; 0 picks a free port. On the internet: 25. */
  SMTP_INBOUND_PORT: z.union([z.literal('off'), port]).default(2526),
  /**
   * Receiving domains, comma separated: `domain` (mail goes to the default team) or
   * `domain=<teamId>`. Mail for any other domain (but BOUNCE_DOMAIN) is refused at RCPT (550).
   */
  INBOUND_DOMAINS: z
    .string()
    .refine(
      (v) => parseInboundDomains(v).every((d) => DOMAIN_NAME.test(d.domain)),
      'must be domains separated by commas, each optionally `=<teamId>`, e.g. in.example.com,support.example.org=0190…',
    )
    .transform(parseInboundDomains)
    .default([]),
  BOUNCE_DOMAIN: bounceDomainEnv,
  /** Days a received email (fields and raw message) is kept; unset: EMAIL_RETENTION_DAYS. */
  INBOUND_RETENTION_DAYS: z.coerce.number().int().min(1).optional(),
  /**
   * `on`: every inbound message is checked — SPF, DKIM, DMARC, ARC, BIMI (mailauth, DNS through
   * DNS_SERVERS) —, a received email carries the results (an Authentication-Results field, RFC
   * 8601, and `authentication` on GET /emails/receiving/:id), and a bounce or complaint whose
   * author domain is not authenticated suppresses nobody. `off`: nothing is checked and every
   * report is trusted (only behind a gateway that authenticates mail already).
   */
  INBOUND_AUTH: z.enum(['on', 'off']).default('on'),
  /**
   * With INBOUND_AUTH=on: refuse at the end of DATA (550 5.7.1) a message that fails DMARC when
   * its author domain publishes `p=reject` (RFC 7489 section 6.6); false: accept and record it.
   */
  INBOUND_DMARC_REJECT: boolEnv.default(true),
  /** Largest message the inbound server accepts, in bytes (SIZE, RFC 1870; 552 over it). */
  SMTP_INBOUND_MAX_BYTES: bytesEnv(40 * 1024 * 1024),
};

/** INBOUND_RETENTION_DAYS (else EMAIL_RETENTION_DAYS) in milliseconds. */
export function inboundRetentionMs(config: {
  INBOUND_RETENTION_DAYS?: number | undefined;
  EMAIL_RETENTION_DAYS: number;
}): number {
  return (config.INBOUND_RETENTION_DAYS ?? config.EMAIL_RETENTION_DAYS) * 86_400_000;
}

export const workerEnv = {
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  /** Emails per second per lane across all worker processes (BullMQ's queue-wide limiter; 0 = unlimited). */
  WORKER_SEND_RATE: z.coerce.number().int().min(0).default(0),
  /**
   * Backoff ladder for temporary SMTP failures: seconds between attempts, comma separated.
   * Unset: the default ladder, 24 h in total (DEFAULT_RETRY_SCHEDULE_S in packages/core).
   */
  RETRY_SCHEDULE_S: secondsLadder('60,300,900'),
  /** Multiplier applied to retry delays (tests compress time with e.g. 0.001). */
  RETRY_TIME_SCALE: timeScale,
  /**
   * How long a worker holds a job's lock before it must renew it. A job whose worker died (kill -9,
   * power loss) is taken over by another worker once its lock has expired.
   */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** How often each worker looks for jobs whose lock expired (stalled) and puts them back. */
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),
  /**
   * How many times one job may stall (its worker died mid-send) and be put back before it is
   * failed. Each stall can mean one duplicate send (at-least-once); 2 survives two worker crashes.
   */
  WORKER_MAX_STALLED_COUNT: z.coerce.number().int().min(0).max(100).default(2),
  /**
   * Contact imports one worker process runs at once (each parses its CSV and writes batches of
   * 1,000 contacts; one keeps a core busy). Every worker process takes imports.
   */
  CONTACT_IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(1),
};

/**
 * Broadcast protection (core broadcasts/protection.ts; docs/operations.md, "Broadcast
 * protection"): a broadcast whose complaint or hard-bounce rate goes over its threshold, once
 * `BROADCAST_PROTECTION_MIN_SAMPLE` of its emails were sent, is paused. Unset: core's documented
 * defaults (DEFAULT_PROTECTION_THRESHOLDS: 0.003, 0.05, 500; DEFAULT_BROADCAST_HOLD_RECHECK_MS).
 */
export const broadcastProtectionEnv = {
  /** Complaints / sent above which a broadcast pauses, a fraction (0.003 = 0.3 %). */
  BROADCAST_PROTECTION_COMPLAINT_RATE: z.coerce.number().min(0).max(1).optional(),
  /** Hard (Permanent) bounces / sent above which a broadcast pauses, a fraction (0.05 = 5 %). */
  BROADCAST_PROTECTION_HARD_BOUNCE_RATE: z.coerce.number().min(0).max(1).optional(),
  /** Emails of the broadcast sent before the rates are judged. */
  BROADCAST_PROTECTION_MIN_SAMPLE: z.coerce.number().int().min(1).optional(),
  /** How long a paused broadcast's email waits before it looks again (the resume latency). */
  BROADCAST_HOLD_RECHECK_MS: z.coerce.number().int().min(100).optional(),
};

/**
 * Soft-bounce suppression (core deliver/soft-bounces.ts; docs/operations.md, "Soft-bounce
 * suppression"): an address whose emails end in a final soft bounce (a Temporary bounce once the
 * retry ladder is spent, or a 4xx for it while the others got the message)
 * `SOFT_BOUNCE_SUPPRESS_EMAILS` times in a row, the first at least `SOFT_BOUNCE_SUPPRESS_DAYS`
 * days before the latest, joins the team's suppression list (origin `bounce`). A delivery to it
 * ends the streak.
 */
export const softBounceEnv = {
  /** Emails in a row that must soft-bounce; 0 switches the rule off. */
  SOFT_BOUNCE_SUPPRESS_EMAILS: z.coerce.number().int().min(0).max(1000).default(3),
  /** Days from the streak's first soft bounce to its latest before it suppresses (0: any). */
  SOFT_BOUNCE_SUPPRESS_DAYS: z.coerce.number().min(0).max(365).default(2),
};

/** The automation engine (steps of automation runs, in the worker processes). */
export const automationEnv = {
  /**
   * Automation jobs (event dispatches and run steps) one worker process runs at once. A step
   * mostly waits on Redis; a send_email step only accepts its email (the send lanes send it).
   */
  AUTOMATION_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  /** How long a finished automation run (completed, failed, cancelled) stays readable, in days. */
  AUTOMATION_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
};

/**
 * The inbox agent (`inboxes.agent.*` settings run on new inbound mail): an OpenAI-compatible
 * chat-completions endpoint of the operator's choosing. Unset INBOX_AGENT_URL: the settings are
 * stored and nothing runs. The URL is the operator's own, so it is called as given — a private
 * or loopback address (a model served next to Petrel) included; no address check applies.
 */
export const inboxAgentEnv = {
  /**
   * The chat-completions URL, e.g. https://api.openai.com/v1/chat/completions or a local
   * server's http://127.0.0.1:8000/v1/chat/completions. Read by the inbound server (it queues
   * runs only when set), the API (agent.get says whether it runs) and the worker (the runs).
   */
  INBOX_AGENT_URL: z.string().url().optional(),
  /** The `model` of each request; required with INBOX_AGENT_URL. */
  INBOX_AGENT_MODEL: z.string().min(1).optional(),
  /** Sent as `Authorization: Bearer <key>`; unset: no Authorization header (a local server). */
  INBOX_AGENT_API_KEY: z.string().min(1).optional(),
  /** Deadline of one model call, in ms; a run that times out is retried (with backoff) as a failed job. */
  INBOX_AGENT_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),
  /** Agent runs one worker process makes at once (each mostly waits on the model). */
  INBOX_AGENT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
};

/** The model endpoint the worker calls, or null when none is configured (the agent does not run). */
export function inboxAgentEndpoint(config: {
  INBOX_AGENT_URL?: string | undefined;
  INBOX_AGENT_MODEL?: string | undefined;
  INBOX_AGENT_API_KEY?: string | undefined;
  INBOX_AGENT_TIMEOUT_MS: number;
}): { url: string; model: string; apiKey: string | null; timeoutMs: number } | null {
  if (config.INBOX_AGENT_URL === undefined) return null;
  if (config.INBOX_AGENT_MODEL === undefined)
    throw new ConfigError(
      'Invalid configuration:\n  INBOX_AGENT_MODEL: required when INBOX_AGENT_URL is set',
    );
  return {
    url: config.INBOX_AGENT_URL,
    model: config.INBOX_AGENT_MODEL,
    apiKey: config.INBOX_AGENT_API_KEY ?? null,
    timeoutMs: config.INBOX_AGENT_TIMEOUT_MS,
  };
}

export const webhookEnv = {
  /** Allow webhook (and attachment) URLs on loopback / private networks. Off in production. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolEnv.default(false),
  /** How long a rotated-out signing secret keeps signing beside the new one (seconds; default 24 h). */
  WEBHOOK_SECRET_ROTATION_GRACE_S: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3600),
};

/** The webhook dispatcher (apps/webhooks): delivery retries, timeouts, endpoint health. */
export const webhookDispatchEnv = {
  /**
   * Waits before each delivery attempt, in seconds, comma separated: entry n is the wait before
   * attempt n + 1 (its length is the number of attempts). Unset: Resend's schedule — at once,
   * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (DEFAULT_WEBHOOK_RETRY_SCHEDULE_S in packages/core).
   */
  WEBHOOK_RETRY_SCHEDULE: secondsLadder('0,5,300'),
  /** Multiplier applied to every webhook wait: retries, Retry-After, disable-after, timeout (tests compress time). */
  WEBHOOK_RETRY_TIME_SCALE: timeScale,
  /** Deadline of one delivery attempt (ms): DNS, connect, request and response. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  /** An endpoint failing without a 2xx for this long is disabled (seconds; default 5 days). */
  WEBHOOK_DISABLE_AFTER_S: z.coerce
    .number()
    .int()
    .min(1)
    .default(5 * 24 * 3600),
  /** Deliveries one dispatcher process runs at once, all endpoints together. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
  /** Deliveries one dispatcher process runs at once to a single endpoint. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  /** Lock of a running delivery (ms): a killed dispatcher's delivery is retried once it expires. */
  WEBHOOK_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** How often a dispatcher looks for deliveries whose dispatcher died (ms). */
  WEBHOOK_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),
  /** Stream entries read by a dispatcher that died are taken over after this long idle (ms). */
  WEBHOOK_CLAIM_IDLE_MS: z.coerce.number().int().min(100).default(30_000),
};

/**
 * Per-team limits (apps/api and apps/smtp share them): the defaults of teams that set none of
 * their own (`npm run petrel -- team limits`).
 */
export const limitsEnv = {
  /**
   * Requests per second per team, all its API keys and SMTP submissions together (Resend's
   * default is 10); over it 429 `rate_limit_exceeded`. 0 or unset: no limit.
   */
  RATE_LIMIT_RPS: z.coerce.number().int().min(0).default(0),
  /** Emails a team may send per UTC day; over it 429 `daily_quota_exceeded`. 0 or unset: no quota. */
  DAILY_QUOTA: z.coerce.number().int().min(0).default(0),
  /**
   * Recipients of one email, to + cc + bcc together (over it 422 naming the field), and the RCPT
   * TO commands one SMTP submission may carry (452 past it). At least 100, what RFC 5321 section
   * 4.5.3.1.8 asks a server to accept. One value for the deployment, not per team. Unset: 1,000
   * (DEFAULT_MAX_RECIPIENTS_PER_EMAIL in packages/core).
   */
  MAX_RECIPIENTS_PER_EMAIL: z.coerce.number().int().min(100).max(100_000).optional(),
};

/**
 * The API's request log (`GET /logs`): how long and how much of it each team keeps. Every entry
 * holds up to two bodies of REQUEST_LOG_BODY_MAX_BYTES, so a team's log takes at most about
 * REQUEST_LOG_MAX_ENTRIES × (2 × REQUEST_LOG_BODY_MAX_BYTES + 200 B) of Redis memory.
 */
export const requestLogEnv = {
  /** Days a request stays in its team's log; 0: no request is logged. */
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).max(365).default(30),
  /** Requests kept per team (the oldest go first; trimmed in whole stream nodes, so about this many). */
  REQUEST_LOG_MAX_ENTRIES: z.coerce.number().int().min(100).max(1_000_000).default(10_000),
  /** JSON bytes kept of each request and response body (the rest is cut, with a marker). */
  REQUEST_LOG_BODY_MAX_BYTES: z.coerce.number().int().min(256).max(1_048_576).default(8192),
};

/** The request log's policy from the configuration (core's RequestLogPolicy). */
export function requestLogPolicy(config: {
  REQUEST_LOG_RETENTION_DAYS: number;
  REQUEST_LOG_MAX_ENTRIES: number;
  REQUEST_LOG_BODY_MAX_BYTES: number;
}): { retentionMs: number; maxEntries: number; bodyMaxBytes: number } {
  return {
    retentionMs: config.REQUEST_LOG_RETENTION_DAYS * 86_400_000,
    maxEntries: config.REQUEST_LOG_MAX_ENTRIES,
    bodyMaxBytes: config.REQUEST_LOG_BODY_MAX_BYTES,
  };
}

/** The stuck-email watchdog of the scheduler. */
export const watchdogEnv = {
  /** How often the watchdog samples the oldest unfinished email and sweeps stuck ones, in seconds. */
  WATCHDOG_INTERVAL_S: z.coerce.number().int().min(1).default(60),
  /**
   * How long past due an unfinished email's job must be before the watchdog looks at it, in
   * seconds: longer than an acceptance and the outbox relay take (OUTBOX_GRACE_MS).
   */
  WATCHDOG_STUCK_AFTER_S: z.coerce.number().int().min(1).default(900),
};

/**
 * Adaptive pacing of broadcast fan-outs (the scheduler; core broadcasts/pacing.ts and
 * docs/operations.md, "Broadcast fan-out pacing"): before each page a fan-out reads the
 * transactional lane's jobs waiting and running and, above FANOUT_PACE_IDLE_AT, writes a smaller
 * page after a pause — down to FANOUT_PACE_MIN_PAGE_SIZE contacts after FANOUT_PACE_MAX_DELAY_MS
 * at FANOUT_PACE_BUSY_AT jobs — so its CPU and Redis bursts do not delay transactional mail.
 */
export const fanoutPacingEnv = {
  /** false: every page full, none waits (the fan-out as fast as the machine goes). */
  FANOUT_PACING: boolEnv.default(true),
  /** Transactional jobs (waiting + running) at or below which a fan-out runs at full speed. */
  FANOUT_PACE_IDLE_AT: z.coerce.number().int().min(0).default(0),
  /** Transactional jobs at or above which a fan-out is paced the most (above FANOUT_PACE_IDLE_AT). */
  FANOUT_PACE_BUSY_AT: z.coerce.number().int().min(1).default(50),
  /** Contacts per page when paced the most (the full page is 1,000). */
  FANOUT_PACE_MIN_PAGE_SIZE: z.coerce.number().int().min(1).max(1_000).default(100),
  /** The pause before a page when paced the most, in ms: it bounds how slow a fan-out can get. */
  FANOUT_PACE_MAX_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(200),
};

/** The parsed values of an environment fragment (e.g. `EnvOf<typeof fanoutPacingEnv>`). */
export type EnvOf<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

/** The pacing rule of FANOUT_PACE_*, or undefined with FANOUT_PACING=false. */
export function fanoutPaceRule(
  config: EnvOf<typeof fanoutPacingEnv>,
): { idleAt: number; busyAt: number; minPageSize: number; maxDelayMs: number } | undefined {
  if (!config.FANOUT_PACING) return undefined;
  return {
    idleAt: config.FANOUT_PACE_IDLE_AT,
    busyAt: config.FANOUT_PACE_BUSY_AT,
    minPageSize: config.FANOUT_PACE_MIN_PAGE_SIZE,
    maxDelayMs: config.FANOUT_PACE_MAX_DELAY_MS,
  };
}

/**
 * The broadcast lane yields to transactional mail (the worker; core broadcasts/lane-yield.ts and
 * docs/operations.md, "Broadcast fan-out pacing"): every WORKER_BROADCAST_YIELD_INTERVAL_MS each
 * worker process reads the transactional lane's jobs waiting and running and, above
 * WORKER_BROADCAST_YIELD_IDLE_AT, runs fewer broadcast jobs at once — down to
 * WORKER_BROADCAST_MIN_CONCURRENCY at WORKER_BROADCAST_YIELD_BUSY_AT jobs — so a broadcast's
 * sends leave the CPU to password resets; WORKER_BROADCAST_CONCURRENCY again once the lane drains.
 */
export const broadcastLaneYieldEnv = {
  /**
   * true (the default): the broadcast lane yields. On quiet runs of the lanes bench it brought the
   * transactional p99 during a 100k broadcast from 2.75-3.81x to 1.90-2.40x of the p99 alone, for a
   * broadcast drain 0.67-0.86x of the same broadcast with no transactional load (bench/README.md,
   * "Lanes"); false: the lane always runs WORKER_BROADCAST_CONCURRENCY.
   */
  WORKER_BROADCAST_YIELD: boolEnv.default(true),
  /** Transactional jobs (waiting + running) at or below which the broadcast lane runs in full. */
  WORKER_BROADCAST_YIELD_IDLE_AT: z.coerce.number().int().min(0).default(0),
  /**
   * Transactional jobs at or above which the broadcast lane runs its floor (above the idle level).
   * A transactional job is one request's emails due at once (up to 100). 3: quiet lanes-bench runs
   * gave a transactional p99 ratio of 1.37-1.65x (10: 2.04-2.40x) for a broadcast drain of
   * 0.50-0.57x (10: 0.67-0.86x) while transactional mail flows (bench/README.md, "Lanes").
   */
  WORKER_BROADCAST_YIELD_BUSY_AT: z.coerce.number().int().min(1).default(3),
  /** The broadcast lane's jobs at once per process at the busy level: at least 1, never a stop. */
  WORKER_BROADCAST_MIN_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(1),
  /** How often a worker process reads the transactional lane (one count per shard), in ms. */
  WORKER_BROADCAST_YIELD_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
};

/** The yield rule of WORKER_BROADCAST_YIELD_*, or undefined with WORKER_BROADCAST_YIELD=false. */
export function broadcastLaneYieldRule(
  config: EnvOf<typeof broadcastLaneYieldEnv>,
): { idleAt: number; busyAt: number; minConcurrency: number } | undefined {
  if (!config.WORKER_BROADCAST_YIELD) return undefined;
  return {
    idleAt: config.WORKER_BROADCAST_YIELD_IDLE_AT,
    busyAt: config.WORKER_BROADCAST_YIELD_BUSY_AT,
    minConcurrency: config.WORKER_BROADCAST_MIN_CONCURRENCY,
  };
}

/** One sending IP pool of SENDING_POOLS. */
const sendingPool = z.object({
  addresses: z
    .array(z.string().refine((a) => isIP(a) !== 0, 'must be an IPv4 or IPv6 address'))
    .min(1, 'must list at least one local address'),
  teams: z.array(z.string().min(1)).default([]),
  domains: z.array(z.string().regex(DOMAIN_NAME, 'must be a domain name, e.g. example.com')).default([]),
});

/**
 * Direct delivery's care for the receiving side (DELIVERY_MODE=direct only): MTA-STS (RFC 8461),
 * TLS-RPT (RFC 8460) and sending IP pools with their warm-up. Read by the worker (delivery) and
 * the scheduler (the daily TLS-RPT reports). The settings marked test-only exist so the e2e tests
 * can run a policy server and a report day on the loopback; production leaves them unset.
 */
export const directCareEnv = {
  /** Look up and apply recipient domains' MTA-STS policies (RFC 8461). */
  MTA_STS: boolEnv.default(true),
  /** Test-only: the HTTPS port of `mta-sts.<domain>` (RFC 8461 fixes 443). */
  MTA_STS_HTTPS_PORT: port.min(1).default(443),
  /**
   * Test-only: a PEM file of a CA trusted besides the system's, for the policy fetch and the MX
   * certificate checks (a local test CA).
   */
  MTA_STS_CA_FILE: z.string().min(1).optional(),
  /** Count TLS sessions per policy domain and send the daily reports (RFC 8460). */
  TLS_RPT: boolEnv.default(true),
  /** `organization-name` of the reports. */
  TLS_RPT_ORG_NAME: z.string().min(1).default('Petrel'),
  /** `contact-info` of the reports: where a domain's operators can reach yours. */
  TLS_RPT_CONTACT: z.string().min(1).optional(),
  /**
   * From address of the reports sent by email (a `mailto:` rua), through the send path of
   * TLS_RPT_TEAM_ID; without both, `mailto:` rua are skipped (https: ones still get theirs).
   */
  TLS_RPT_FROM: z.string().email().optional(),
  /** The team whose send path (and sending domain) the emailed reports go through. */
  TLS_RPT_TEAM_ID: z.string().min(1).optional(),
  /** How often the scheduler looks for finished report days to send, in seconds. */
  TLS_RPT_INTERVAL_S: z.coerce.number().int().min(1).default(3600),
  /** Test-only: the length of a report "day" in seconds (RFC 8460 reports cover 24 h). */
  TLS_RPT_DAY_S: z.coerce.number().int().min(1).max(86_400).default(86_400),
  /**
   * Sending IP pools, JSON: `{"<name>": {"addresses": ["203.0.113.5"], "teams": ["<teamId>"],
   * "domains": ["acme.com"]}}`. An email uses the pool of its from-domain (or a parent domain),
   * else its team's, else the pool named `default`, else the machine's default address.
   */
  SENDING_POOLS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return [];
      let json: unknown;
      try {
        json = JSON.parse(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON: {"<pool>": {"addresses": [...]}}' });
        return z.NEVER;
      }
      const parsed = z
        .record(
          z.string().regex(/^[a-z0-9_-]{1,40}$/i, 'pool names are 1-40 letters, digits, _ or -'),
          sendingPool,
        )
        .safeParse(json);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
        return z.NEVER;
      }
      return Object.entries(parsed.data).map(([name, p]) => ({ name, ...p }));
    }),
  /**
   * Daily cap per destination provider of a pool address on its day 1, 2, 3… of use
   * (comma-separated); past the last day no cap. Unset: packages/core's DEFAULT_WARMUP_SCHEDULE
   * (50, 100, 200, 400, 750, 1500, 3000, 6000, 10 000, 20 000, 40 000, 70 000, 100 000). `off`: no warm-up.
   */
  WARMUP_SCHEDULE: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      if (v.trim().toLowerCase() === 'off') return [];
      const caps = v.split(',').map((s) => Number(s.trim()));
      if (!caps.every((n) => Number.isInteger(n) && n >= 1)) {
        ctx.addIssue({ code: 'custom', message: 'must be comma-separated whole numbers ≥ 1 (or off)' });
        return z.NEVER;
      }
      return caps;
    }),
  /** Test-only: the length of a warm-up "day" in seconds. */
  WARMUP_DAY_S: z.coerce.number().int().min(1).max(86_400).default(86_400),
};

/**
 * Sending domains (POST /domains): where their DNS records point, how they are checked, how their
 * DKIM keys are made and kept, and whether a `from` must be at a verified domain. Read by the
 * API (create, verify, the acceptance check), the worker (signing) and the scheduler (checks);
 * the checks ask DNS_SERVERS ({@link dnsEnv}).
 */
export const domainsEnv = {
  /**
   * Key that encrypts the domains' DKIM private keys at rest (AES-256-GCM; at least 32
   * characters). Unset: one is generated once and kept in Redis, shared by every process.
   */
  DOMAIN_KEY_SECRET: z.string().min(32).optional(),
  /** Selector of the domains' RSA DKIM keys (`<selector>._domainkey.<domain>`). */
  DKIM_SELECTOR: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i, 'must be one DNS label, e.g. petrel')
    .default('petrel'),
  /** Give every new domain an Ed25519 key too (RFC 8463), a second signature beside RSA. */
  DKIM_ED25519: boolEnv.default(false),
  /**
   * Domain claims (POST /domains/claim): how long after its TXT record is found a claim waits
   * (`grace_period`), how far back the holder's sends from the domain block it
   * (`recent_owner_activity`), and how long a claim may take before it is `expired`.
   */
  DOMAIN_CLAIM_GRACE_S: z.coerce.number().int().min(0).default(86_400),
  DOMAIN_CLAIM_ACTIVITY_WINDOW_S: z.coerce.number().int().min(0).default(86_400),
  DOMAIN_CLAIM_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .default(7 * 86_400),
  /**
   * Host name the domains' MX records point at: the inbound SMTP server (SMTP_INBOUND_PORT on
   * port 25), where bounces to the return-path subdomain and received mail arrive.
   */
  DOMAIN_MX_HOST: z
    .string()
    .regex(DOMAIN_NAME, 'must be a host name, e.g. mx.example.com')
    .default('localhost.localdomain'),
  /**
   * SPF policy published on each domain's return-path subdomain (RFC 7208). Unset:
   * `v=spf1 a:<DOMAIN_MX_HOST> ~all` (the sending host is the MX host). List the sending IPs or
   * the relay's include when they differ.
   */
  DOMAIN_SPF_POLICY: z
    .string()
    .regex(/^v=spf1( .*)?$/, 'must start with v=spf1')
    .optional(),
  /**
   * Refuse (403) an email whose `from` is not at a verified sending domain of the team. On by
   * default; the all-in-one `npm start` turns it off for local development.
   */
  ENFORCE_VERIFIED_DOMAINS: boolEnv.default(true),
  /** How often each domain's DNS records are looked up again (the first time: this long after its creation), in seconds. */
  DOMAIN_VERIFY_INTERVAL_S: z.coerce.number().int().min(1).default(3600),
};

/** Where the domains' records point (see {@link domainsEnv}). */
export function domainDnsTargets(config: {
  DOMAIN_MX_HOST: string;
  DOMAIN_SPF_POLICY?: string | undefined;
}): {
  mxHost: string;
  spf: string;
} {
  return {
    mxHost: config.DOMAIN_MX_HOST,
    spf: config.DOMAIN_SPF_POLICY ?? `v=spf1 a:${config.DOMAIN_MX_HOST} ~all`,
  };
}

/** The DKIM settings of new domains: RSA selector, and the Ed25519 one when DKIM_ED25519 is on. */
export function dkimSettings(config: { DKIM_SELECTOR: string; DKIM_ED25519: boolean }): {
  selector: string;
  ed25519Selector: string;
  ed25519: boolean;
} {
  return {
    selector: config.DKIM_SELECTOR,
    ed25519Selector: `${config.DKIM_SELECTOR}-ed25519`,
    ed25519: config.DKIM_ED25519,
  };
}

export const dataEnv = {
  /** Directory for the embedded redis-server and captured mail (all-in-one mode). */
  DATA_DIR: z.string().default('.data'),
  /** How long email records and their timelines are kept, in days. */
  EMAIL_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  /** How long the hourly email counters behind GET /stats/emails (the dashboard's charts) are kept, in days. */
  DASHBOARD_STATS_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
};

/** The web dashboard served by the API under /dashboard. */
export const dashboardEnv = {
  /** How long a dashboard session lasts from sign-in, in seconds (no sliding renewal). */
  DASHBOARD_SESSION_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .default(8 * 3600),
  /** The built single-page app (default: apps/dashboard/dist of this checkout). */
  DASHBOARD_DIST_DIR: z.string().optional(),
};

const DAY_MS = 86_400_000;

/** EMAIL_RETENTION_DAYS in milliseconds: the TTL of email records and their timelines. */
export function emailRetentionMs(config: { EMAIL_RETENTION_DAYS: number }): number {
  return config.EMAIL_RETENTION_DAYS * DAY_MS;
}

/** The email store's options from the configuration: how long its hourly counters are kept. */
export function emailStoreOptions(config: { DASHBOARD_STATS_RETENTION_DAYS: number }): {
  statsRetentionMs: number;
} {
  return { statsRetentionMs: config.DASHBOARD_STATS_RETENTION_DAYS * DAY_MS };
}

/** Parse `env` against `shape`, or throw one readable message listing every bad variable. */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): EnvOf<S> {
  const result = z.object(shape).superRefine(redisTarget).superRefine(httpTimeouts).safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const data: Record<string, unknown> = result.data;
  // REDIS_CLUSTER_NODES is another spelling of a cluster REDIS_URL: every app reads REDIS_URL.
  if (typeof data.REDIS_CLUSTER_NODES === 'string')
    return { ...result.data, REDIS_URL: `redis+cluster://${data.REDIS_CLUSTER_NODES}` };
  return result.data;
}

/** REDIS_URL and REDIS_CLUSTER_NODES name the same thing: at most one may be set. */
function redisTarget(data: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (data.REDIS_URL !== undefined && data.REDIS_CLUSTER_NODES !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['REDIS_CLUSTER_NODES'],
      message: 'set REDIS_URL or REDIS_CLUSTER_NODES, not both',
    });
}

/** Node refuses a headersTimeout above requestTimeout (http.createServer): say so at start-up. */
function httpTimeouts(data: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const { HTTP_HEADERS_TIMEOUT_MS: headers, HTTP_REQUEST_TIMEOUT_MS: request } = data;
  if (typeof headers === 'number' && typeof request === 'number' && headers > request)
    ctx.addIssue({
      code: 'custom',
      path: ['HTTP_HEADERS_TIMEOUT_MS'],
      message: `must be at most HTTP_REQUEST_TIMEOUT_MS (${request})`,
    });
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export { z };

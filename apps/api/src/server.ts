/**
 * Start the HTTP API against a Redis URL: stores, send queues, the Express app and its HTTP
 * server. Used by `main.ts` (API alone) and by the all-in-one launcher.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import {
  ApiKeysStore,
  DomainClaimsStore,
  DomainKeyCipher,
  DomainsStore,
  createDomainDns,
  domainKeySecret,
  AutomationRunsStore,
  AutomationsStore,
  BroadcastsStore,
  DashboardSessionsStore,
  EmailStats,
  EmailMetricsStore,
  BroadcastAnalyticsStore,
  ContactImportsStore,
  ContactPropertiesStore,
  ContactsStore,
  CustomEventsStore,
  EmailsStore,
  IdempotencyStore,
  InboundStore,
  Keys,
  OutboxStore,
  RateLimitStore,
  redisPreparer,
  RecipientStatesStore,
  RequestLogsStore,
  RequestLogWriter,
  UsageStore,
  SegmentsStore,
  SuppressionsStore,
  TemplatesStore,
  TopicsStore,
  WebhooksStore,
  createRedis,
  eventSendIdempotency,
  pingRedis,
  unsubscribeSecret,
} from '@petrel/store';
import {
  AutomationQueue,
  BroadcastFanoutQueue,
  ContactImportQueue,
  SendQueues,
  WebhookDeliveryQueue,
} from '@petrel/queue';
import {
  engagementTracker,
  newId,
  unsubscribeLinks,
  type BroadcastEmailReadPorts,
  type Preparer,
} from '@petrel/core';
import { vetNewEndpoint, type HostResolver } from '@petrel/core';
import { lookup } from 'node:dns/promises';
import { createAttachmentFetcher } from '@petrel/mailer';
import {
  dkimSettings,
  domainDnsTargets,
  emailRetentionMs,
  emailStoreOptions,
  publicUrl,
  requestLogPolicy,
} from '@petrel/config';
import type { DnsPort } from '@petrel/core';
import { domainsRoutes } from './routes/domains.routes.js';
import { listenHttp, log, logConnectionError, metrics } from '@petrel/observability';
import { createApp } from './app.js';
import { acceptancePorts } from '@petrel/runtime';
import type { ApiConfig } from './config.js';
import type { RouteSpec } from './routes/route-table.js';
import { templatesRoutes } from './routes/templates.routes.js';
import { unsubscribeRoutes } from './routes/unsubscribe.routes.js';
import { trackingRoutes } from './routes/tracking.routes.js';
import { receivingDownloadRoutes, receivingRoutes, type ReceivingDeps } from './routes/receiving.routes.js';
import { emailShareLinkRoutes, emailShareRoutes, type EmailShareDeps } from './routes/email-share.routes.js';
import { domainClaimPolicy, domainClaimsRoutes } from './routes/domain-claims.routes.js';
import { topicsRoutes } from './routes/topics.routes.js';
import { inboxesRoutes } from './routes/inboxes.routes.js';
import { inboxDraftsRoutes } from './routes/inbox-drafts.routes.js';
import { suppressionsRoutes } from './routes/suppressions.routes.js';
import { contactsRoutes, type AudienceStores } from './routes/contacts.routes.js';
import { contactTopicsRoutes } from './routes/contact-topics.routes.js';
import { segmentsRoutes } from './routes/segments.routes.js';
import { audiencesRoutes } from './routes/audiences.routes.js';
import { contactPropertiesRoutes } from './routes/contact-properties.routes.js';
import { contactImportsRoutes } from './routes/contact-imports.routes.js';
import { broadcastsRoutes } from './routes/broadcasts.routes.js';
import { webhooksRoutes } from './routes/webhooks.routes.js';
import { eventsRoutes } from './routes/events.routes.js';
import { automationsRoutes } from './routes/automations.routes.js';
import { CspReports, defaultDashboardDist } from './dashboard/index.js';
import { statsRoutes } from './routes/stats.routes.js';
import { emailMetricsRoutes } from './routes/email-metrics.routes.js';
import { logsRoutes } from './routes/logs.routes.js';
import { usageRoutes } from './routes/usage.routes.js';
import { randomBytes } from 'node:crypto';
import { oauthComponents } from './oauth/index.js';
import { oauthComponents } from './oauth/index.js';

/** How long shutdown waits for in-flight requests before cutting the remaining connections. */
export const SHUTDOWN_DRAIN_MS = 10_000;

export interface ApiHandle {
  port: number;
  server: Server;
  /** The Express app behind `server` (its router lists every route). */
  app: Express;
  apiKeys: ApiKeysStore;
  defaultTeamId: string;
  close(): Promise<void>;
}

export interface ApiExtensions {
  /**
   * The acceptance stages, replacing the defaults (`defaultPreparer(ctx)`); build one with
   * `prepareWith([...acceptStages(...), extra])` from core to extend them.
   */
  preparer?: (ctx: ApiContext) => Preparer;
  /** Routes besides the default ones; mounted in one order with them (fixed paths first). */
  routes?: (ctx: ApiContext) => RouteSpec[];
  /** Resolves webhook endpoint host names for the SSRF check (default: the system resolver). */
  webhookResolver?: HostResolver;
}

export interface ApiContext {
  redis: ReturnType<typeof createRedis>;
  keys: Keys;
  config: ApiConfig;
  templates: TemplatesStore;
  topics: TopicsStore;
  suppressions: SuppressionsStore;
  contacts: ContactsStore;
  segments: SegmentsStore;
  contactProperties: ContactPropertiesStore;
  contactImports: ContactImportsStore;
  /** The contact-import queue (POST /contacts/imports queues one job per import). */
  importQueue: ContactImportQueue;
  broadcasts: BroadcastsStore;
  /** The broadcast fan-out queue (send/schedule adds a broadcast's job, cancel/delete remove it). */
  fanoutQueue: BroadcastFanoutQueue;
  webhooks: WebhooksStore;
  /** The webhook delivery queue (a replay enqueues one delivery). */
  webhookQueue: WebhookDeliveryQueue;
  /** Resolves webhook endpoint host names for the SSRF check. */
  webhookResolver: HostResolver;
  /** Sending domains (their DKIM keys sealed with DOMAIN_KEY_SECRET) and the DNS their checks ask. */
  domains: DomainsStore;
  domainDns: DnsPort;
  /** The teams' request rate and daily quota. */
  limits: RateLimitStore;
  /** Event definitions and the received-events log (POST /events, POST /events/send). */
  customEvents: CustomEventsStore;
  automations: AutomationsStore;
  automationRuns: AutomationRunsStore;
  /** The automation queue: POST /events/send hands each event over as a job (AutomationTriggers). */
  automationQueue: AutomationQueue;
}

/** The system resolver: every address of a name, as the dispatcher resolves it. */
export const systemHostResolver: HostResolver = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

/** The acceptance stages of core over this process's stores and attachment fetcher. */
export function defaultPreparer(ctx: ApiContext): Preparer {
  return redisPreparer({
    templates: ctx.templates,
    topics: ctx.topics,
    attachments: createAttachmentFetcher({ allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
    domains: ctx.domains,
    enforceVerifiedDomains: ctx.config.ENFORCE_VERIFIED_DOMAINS,
    limits: ctx.limits,
    dailyQuota: ctx.config.DAILY_QUOTA,
    onDailyQuotaRefused: () => metrics.rateLimited().inc({ kind: 'daily_quota' }),
    maxRecipients: ctx.config.MAX_RECIPIENTS_PER_EMAIL,
  });
}

/** The feature routes the API always serves, besides /emails and /api-keys. */
export function defaultRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    ...templatesRoutes(ctx.templates),
    ...domainsRoutes({
      domains: ctx.domains,
      dns: ctx.domainDns,
      targets: domainDnsTargets(ctx.config),
      dkim: dkimSettings(ctx.config),
      clock: Date,
    }),
    ...topicsRoutes(ctx.topics),
    ...suppressionsRoutes(ctx.suppressions),
    ...audienceRoutes(ctx),
    ...broadcastsRoutes({
      broadcasts: ctx.broadcasts,
      segments: ctx.segments,
      topics: ctx.topics,
      fanout: ctx.fanoutQueue,
      clock: Date,
    }),
    ...webhooksRoutes({
      store: ctx.webhooks,
      queue: ctx.webhookQueue,
      clock: Date,
      rotationGraceMs: ctx.config.WEBHOOK_SECRET_ROTATION_GRACE_S * 1000,
      vet: (endpoint) =>
        vetNewEndpoint(endpoint, {
          allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
          resolve: ctx.webhookResolver,
        }),
    }),
    ...automationsRoutes({ automations: ctx.automations, runs: ctx.automationRuns, clock: Date }),
  ];
}

/** Contacts, their segments and topic choices, segments (and legacy audiences), contact properties. */
function audienceRoutes(ctx: ApiContext): RouteSpec[] {
  const stores: AudienceStores = {
    contacts: ctx.contacts,
    segments: ctx.segments,
    properties: ctx.contactProperties,
    topics: ctx.topics,
  };
  return [
    ...contactsRoutes(stores),
    ...contactTopicsRoutes(stores),
    ...segmentsRoutes(stores),
    ...audiencesRoutes(stores),
    ...contactPropertiesRoutes(ctx.contactProperties),
    ...contactImportsRoutes({
      store: ctx.contactImports,
      queue: ctx.importQueue,
      maxBytes: ctx.config.CONTACT_IMPORT_MAX_BYTES,
    }),
  ];
}

export async function startApi(config: ApiConfig, ext: ApiExtensions = {}): Promise<ApiHandle> {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is required to start the API');
  const redis = createRedis(config.REDIS_URL, 'command', 'petrel-api', logConnectionError('petrel-api'));
  const keys = new Keys(config.REDIS_KEY_PREFIX);
  const retentionMs = emailRetentionMs(config);
  // Versions of a deleted template stay readable as long as an email that pinned one can exist.
  const templates = new TemplatesStore(redis, keys, retentionMs);
  const topics = new TopicsStore(redis, keys);
  const suppressions = new SuppressionsStore(redis, keys);
  const contacts = new ContactsStore(redis, keys);
  const segments = new SegmentsStore(redis, keys);
  const contactProperties = new ContactPropertiesStore(redis, keys);
  const ctx: ApiContext = {
    redis,
    keys,
    config,
    templates,
    topics,
    suppressions,
    contacts,
    segments,
    contactProperties,
    contactImports: new ContactImportsStore(redis, keys),
    importQueue: new ContactImportQueue(redis, { prefix: keys.bullPrefix() }),
    broadcasts: new BroadcastsStore(redis, keys),
    fanoutQueue: new BroadcastFanoutQueue(redis, { prefix: keys.bullPrefix() }),
    webhooks: new WebhooksStore(redis, keys, retentionMs),
    webhookQueue: new WebhookDeliveryQueue(redis, { prefix: keys.bullPrefix() }),
    webhookResolver: ext.webhookResolver ?? systemHostResolver,
    domains: new DomainsStore(redis, keys, {
      cipher: new DomainKeyCipher(await domainKeySecret(redis, keys, config.DOMAIN_KEY_SECRET)),
      checkIntervalMs: config.DOMAIN_VERIFY_INTERVAL_S * 1000,
    }),
    domainDns: createDomainDns({ servers: config.DNS_SERVERS }),
    limits: new RateLimitStore(redis, keys),
    customEvents: new CustomEventsStore(redis, keys),
    automations: new AutomationsStore(redis, keys),
    automationRuns: new AutomationRunsStore(redis, keys, config.AUTOMATION_RUN_RETENTION_DAYS * 86_400_000),
    automationQueue: new AutomationQueue(redis, { prefix: keys.bullPrefix() }),
  };
  const apiKeys = new ApiKeysStore(redis, keys);
  const emails = new EmailsStore(redis, keys, retentionMs, emailStoreOptions(config));
  const idempotency = new IdempotencyStore(redis, keys, config.IDEMPOTENCY_LOCK_MS);
  const outbox = new OutboxStore(redis, keys, idempotency);
  const queues = new SendQueues(redis, {
    prefix: keys.bullPrefix(),
    shards: config.QUEUE_SHARDS,
    previousShards: config.QUEUE_SHARDS_PREVIOUS,
  });
  await queues.ready();
  await ctx.importQueue.ready();
  await ctx.fanoutQueue.ready();
  await ctx.webhookQueue.ready();
  await ctx.automationQueue.ready();

  const defaultTeamId = await apiKeys.ensureDefaultTeam();
  if (config.BOOTSTRAP_API_KEY) await apiKeys.ensureToken(defaultTeamId, config.BOOTSTRAP_API_KEY);

  const preparer = ext.preparer ? ext.preparer(ctx) : defaultPreparer(ctx);
  // received emails: reads, and their short-lived download links (signed with the links' key)
  const receiving: ReceivingDeps = {
    inbound: new InboundStore(redis, keys, retentionMs),
    secret: await unsubscribeSecret(redis, keys, config.UNSUBSCRIBE_SECRET),
    // read per request: with PORT=0 the port is known only once listening
    publicUrl: () =>
      publicUrl({ ...config, PORT: (server.address() as AddressInfo | null)?.port ?? config.PORT }),
    now: () => Date.now(),
  };
  // third-party apps through OAuth 2.1 (docs/oauth.md): its endpoints and its Bearer tokens
  const oauth = oauthComponents({ redis, keys, publicUrl: receiving.publicUrl });
  // third-party apps through OAuth 2.1 (docs/oauth.md): its endpoints and its Bearer tokens
  const oauth = oauthComponents({ redis, keys, publicUrl: receiving.publicUrl });
  const accept = acceptancePorts({ emails, idempotency, outbox, queues, preparer });
  // the team's request log (GET /logs): written in batches after the responses
  const logPolicy = requestLogPolicy(config);
  const requestLogWriter =
    logPolicy.retentionMs > 0
      ? new RequestLogWriter(redis, keys, logPolicy, {
          onError: (err, lost) => log().warn({ err, lost }, 'request logs could not be written'),
          onDropped: (lost) => log().warn({ lost }, 'request logs dropped: the buffer is full'),
        })
      : undefined;
  // GET /emails/:id (and a shared page) of a broadcast's email renders it as the worker sent it,
  // with the same links (the same key and public URL)
  const broadcastEmails: BroadcastEmailReadPorts = {
    broadcasts: ctx.broadcasts,
    contacts,
    contactProperties,
    unsubscribe: {
      url: (claims) =>
        unsubscribeLinks({ secret: receiving.secret, publicUrl: receiving.publicUrl(), now: Date.now }).url(
          claims,
        ),
    },
  };
  // sent emails' attachments and shared links: the links' key and public URL of the received ones
  const sharing: EmailShareDeps = { ...receiving, emails, broadcastEmails };
  const app = createApp({
    apiKeys,
    domains: ctx.domains,
    emails,
    queues,
    accept,
    broadcastEmails,
    ready: () => pingRedis(redis),
    rateLimit: { limiter: ctx.limits, defaultRps: config.RATE_LIMIT_RPS },
    ...(requestLogWriter && { requestLog: requestLogWriter }),
    dashboard: {
      ports: {
        keys: apiKeys,
        sessions: new DashboardSessionsStore(redis, keys),
        clock: Date,
        randomToken: () => randomBytes(32).toString('base64url'),
        // the links' key, under its own purpose (a session cookie is no link token, and back)
        secret: await unsubscribeSecret(redis, keys, config.UNSUBSCRIBE_SECRET),
        ttlMs: config.DASHBOARD_SESSION_TTL_S * 1000,
      },
      distDir: config.DASHBOARD_DIST_DIR ?? defaultDashboardDist(),
      publicUrl: config.PUBLIC_URL,
      cspReports: new CspReports(),
    },
    bodyLimitBytes: config.API_BODY_LIMIT_BYTES,
    oauthTokens: oauth.tokens,
    oauthTokens: oauth.tokens,
    batchBodyLimitBytes: config.API_BATCH_BODY_LIMIT_BYTES,
    extraRoutes: [
      ...defaultRoutes(ctx),
      ...oauth.apiRoutes,
      ...oauth.apiRoutes,
      ...receivingRoutes(receiving),
      ...emailShareRoutes(sharing),
      ...domainClaimsRoutes({
        domains: ctx.domains,
        claims: new DomainClaimsStore(redis, keys, ctx.domains, emails),
        dns: ctx.domainDns,
        targets: domainDnsTargets(config),
        dkim: dkimSettings(config),
        policy: domainClaimPolicy(config),
        clock: Date,
      }),
      ...inboxesRoutes({
        redis,
        keys,
        domains: ctx.domains,
        inbound: receiving.inbound,
        emails,
        inboundDomains: config.INBOUND_DOMAINS,
        defaultTeamId,
        agentRunner: config.INBOX_AGENT_URL !== undefined,
      }),
      ...inboxDraftsRoutes({
        redis,
        keys,
        accept,
        idempotency: eventSendIdempotency(accept, idempotency, redis),
        inbound: receiving.inbound,
        emails,
        fetcher: createAttachmentFetcher({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
      }),
      ...statsRoutes({ stats: new EmailStats(redis, keys), clock: Date }),
      ...emailMetricsRoutes({
        metrics: {
          ...new EmailMetricsStore(redis, keys, emailStoreOptions(config).statsRetentionMs),
          domains: ctx.domains,
          broadcasts: ctx.broadcasts,
          clock: Date,
        },
        analytics: {
          broadcasts: ctx.broadcasts,
          analytics: new BroadcastAnalyticsStore(redis, keys, retentionMs),
        },
      }),
      ...logsRoutes({ reader: new RequestLogsStore(redis, keys), policy: logPolicy, now: Date.now }),
      ...usageRoutes({
        reader: new UsageStore(redis, keys, ctx.limits),
        // the same defaults the limits are enforced with (rate-limit middleware, daily-quota stage)
        defaults: { rps: config.RATE_LIMIT_RPS, dailyQuota: config.DAILY_QUOTA },
        now: Date.now,
      }),
      ...eventsRoutes({
        events: ctx.customEvents,
        contacts,
        properties: contactProperties,
        idempotency: eventSendIdempotency(accept, idempotency, redis),
        // durable hand-over: the event's job is in Redis before the 202
        triggers: ctx.automationQueue,
        clock: Date,
      }),
      ...(ext.routes ? ext.routes(ctx) : []),
    ],
    unsubscribeRoutes: [
      ...oauth.publicRoutes,
      ...oauth.publicRoutes,
      ...receivingDownloadRoutes(receiving),
      ...emailShareLinkRoutes(sharing),
      ...unsubscribeRoutes({
        contacts,
        topics,
        recipients: new RecipientStatesStore(redis, keys),
        secret: await unsubscribeSecret(redis, keys, config.UNSUBSCRIBE_SECRET),
        now: () => Date.now(),
      }),
      // open pixels and tracked links: signed with the same key, recorded through the email records
      ...trackingRoutes(
        engagementTracker({
          emails,
          secret: await unsubscribeSecret(redis, keys, config.UNSUBSCRIBE_SECRET),
          clock: { now: () => Date.now(), monotonicMs: () => performance.now() },
          ids: { newEventId: () => newId() },
          onRecordError: (err) => log().warn({ err }, 'an open or click could not be recorded'),
        }),
      ),
    ],
  });
  let closing = false;
  const { server, port } = await listenHttp(
    (req, res) => {
      if (closing) res.setHeader('Connection', 'close');
      app(req, res);
    },
    { port: config.PORT, host: '0.0.0.0', timeouts: config },
  );
  log().info({ port }, 'API listening');

  return {
    port,
    server,
    app,
    apiKeys,
    defaultTeamId,
    async close() {
      // Stop accepting, let in-flight requests finish, then close Redis. Keep-alive connections
      // that go idle after their last in-flight response would otherwise hold close() open until
      // keepAliveTimeout: answer with `Connection: close` from now on and sweep idle sockets.
      closing = true;
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const hardStop = setTimeout(() => server.closeAllConnections(), SHUTDOWN_DRAIN_MS);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      clearInterval(sweep);
      clearTimeout(hardStop);
      await queues.close();
      await ctx.importQueue.close();
      await ctx.fanoutQueue.close();
      await ctx.webhookQueue.close();
      await ctx.automationQueue.close();
      await requestLogWriter?.close();
      await redis.quit().catch(() => undefined);
    },
  };
}

/**
 * Every store of the deployment, built from the process's one command connection (or another
 * connection of the runtime's, see `Runtime.over`) and configuration. Adding a store is one line
 * here; each process gets it as `runtime.stores.<name>`, built on first use.
 */
import { emailRetentionMs, emailStoreOptions, inboundRetentionMs } from '@petrel/config';
import {
  ApiKeysStore,
  AutomationRunsStore,
  BroadcastAnalyticsStore,
  DomainClaimsStore,
  EmailMetricsStore,
  OAuthClientsStore,
  OAuthGrantsStore,
  RequestLogsStore,
  TlsRptStore,
  UsageStore,
  WarmupStore,
  AutomationsStore,
  BroadcastEmailsStore,
  BroadcastsStore,
  ContactImportsStore,
  ContactPropertiesStore,
  ContactsStore,
  CustomEventsStore,
  DashboardSessionsStore,
  DomainsStore,
  EmailStats,
  EmailsStore,
  IdempotencyStore,
  InboundStore,
  InboxDraftsStore,
  InboxesStore,
  OutboxStore,
  RateLimitStore,
  RecipientStatesStore,
  SegmentMembersStore,
  SegmentsStore,
  SentEmailsLocator,
  SoftBounceStore,
  SuppressionsStore,
  TeamSettingsStore,
  TemplatesStore,
  TopicsStore,
  WatchdogStore,
  WebhookEventStream,
  WebhooksStore,
  inboxMessageContent,
  type DomainKeyCipher,
  type Keys,
  type RedisClient,
} from '@petrel/store';
import { need, type RuntimeConfig } from './config.js';
import type { Built } from './lazy.js';
import type { Queues } from './queues.js';

/** What a store is built from. */
export interface StoreContext {
  redis: RedisClient;
  keys: Keys;
  config: RuntimeConfig;
  /** The stores of the same connection, for a store built over another. */
  stores: Stores;
  queues: Queues;
  /** The DKIM keys' cipher, its secret read once, when a key is first sealed or opened. */
  domainCipher: () => Promise<DomainKeyCipher>;
}

const DAY_MS = 86_400_000;
const emailsOf = (c: StoreContext): EmailsStore => c.stores.emails;

export const STORES = {
  apiKeys: (c: StoreContext) => new ApiKeysStore(c.redis, c.keys),
  automations: (c: StoreContext) => new AutomationsStore(c.redis, c.keys),
  automationRuns: (c: StoreContext) =>
    new AutomationRunsStore(c.redis, c.keys, need(c.config, 'AUTOMATION_RUN_RETENTION_DAYS') * DAY_MS),
  broadcastAnalytics: (c: StoreContext) =>
    new BroadcastAnalyticsStore(c.redis, c.keys, emailRetentionMs(c.config)),
  broadcastEmails: (c: StoreContext) =>
    new BroadcastEmailsStore(
      c.redis,
      c.keys,
      c.queues.send,
      emailRetentionMs(c.config),
      Date,
      emailStoreOptions(c.config).statsRetentionMs,
    ),
  broadcasts: (c: StoreContext) => new BroadcastsStore(c.redis, c.keys),
  contactImports: (c: StoreContext) => new ContactImportsStore(c.redis, c.keys),
  contactProperties: (c: StoreContext) => new ContactPropertiesStore(c.redis, c.keys),
  contacts: (c: StoreContext) => new ContactsStore(c.redis, c.keys),
  customEvents: (c: StoreContext) => new CustomEventsStore(c.redis, c.keys),
  dashboardSessions: (c: StoreContext) => new DashboardSessionsStore(c.redis, c.keys),
  domainClaims: (c: StoreContext) => new DomainClaimsStore(c.redis, c.keys, c.stores.domains, emailsOf(c)),
  domains: (c: StoreContext) =>
    new DomainsStore(c.redis, c.keys, {
      cipher: c.domainCipher,
      ...(c.config.DOMAIN_VERIFY_INTERVAL_S !== undefined && {
        checkIntervalMs: c.config.DOMAIN_VERIFY_INTERVAL_S * 1000,
      }),
    }),
  emailMetrics: (c: StoreContext) =>
    new EmailMetricsStore(c.redis, c.keys, emailStoreOptions(c.config).statsRetentionMs),
  emailStats: (c: StoreContext) => new EmailStats(c.redis, c.keys),
  // every process's events go through the one event script, hourly counters included: one options
  emails: (c: StoreContext) =>
    new EmailsStore(c.redis, c.keys, emailRetentionMs(c.config), emailStoreOptions(c.config)),
  idempotency: (c: StoreContext) => new IdempotencyStore(c.redis, c.keys, c.config.IDEMPOTENCY_LOCK_MS),
  inbound: (c: StoreContext) => new InboundStore(c.redis, c.keys, inboundRetentionMs(c.config)),
  inboxContent: (c: StoreContext) => inboxMessageContent({ inbound: c.stores.inbound, emails: emailsOf(c) }),
  inboxDrafts: (c: StoreContext) => new InboxDraftsStore(c.redis, c.keys),
  inboxes: (c: StoreContext) => new InboxesStore(c.redis, c.keys),
  limits: (c: StoreContext) => new RateLimitStore(c.redis, c.keys),
  oauthClients: (c: StoreContext) => new OAuthClientsStore(c.redis, c.keys),
  oauthGrants: (c: StoreContext) => new OAuthGrantsStore(c.redis, c.keys),
  outbox: (c: StoreContext): OutboxStore => new OutboxStore(c.redis, c.keys, c.stores.idempotency),
  recipientStates: (c: StoreContext) => new RecipientStatesStore(c.redis, c.keys),
  requestLogs: (c: StoreContext) => new RequestLogsStore(c.redis, c.keys),
  segmentMembers: (c: StoreContext) => new SegmentMembersStore(c.redis, c.keys),
  segments: (c: StoreContext) => new SegmentsStore(c.redis, c.keys),
  sentEmails: (c: StoreContext) => new SentEmailsLocator(c.redis, c.keys, emailsOf(c)),
  softBounces: (c: StoreContext) => new SoftBounceStore(c.redis, c.keys),
  suppressions: (c: StoreContext) => new SuppressionsStore(c.redis, c.keys),
  teamSettings: (c: StoreContext) => new TeamSettingsStore(c.redis, c.keys),
  // versions of a deleted template stay readable as long as an email that pinned one can exist
  templates: (c: StoreContext) => new TemplatesStore(c.redis, c.keys, emailRetentionMs(c.config)),
  tlsRpt: (c: StoreContext) =>
    new TlsRptStore(c.redis, c.keys, { periodMs: need(c.config, 'TLS_RPT_DAY_S') * 1000 }),
  topics: (c: StoreContext) => new TopicsStore(c.redis, c.keys),
  usage: (c: StoreContext) => new UsageStore(c.redis, c.keys, c.stores.limits),
  warmup: (c: StoreContext) => new WarmupStore(c.redis, c.keys),
  watchdog: (c: StoreContext) => new WatchdogStore(c.redis, c.keys, emailsOf(c)),
  webhookStream: (c: StoreContext) => new WebhookEventStream(c.redis, c.keys),
  webhooks: (c: StoreContext) => new WebhooksStore(c.redis, c.keys, emailRetentionMs(c.config)),
};

export type Stores = Built<typeof STORES>;

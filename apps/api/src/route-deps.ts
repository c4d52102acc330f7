/**
 * The dependencies of the routes that take more than a store or two, built from the process's
 * context (api-routes.ts lists the routes).
 */
import { dkimSettings, domainDnsTargets } from '@petrel/config';
import { engagementTracker, newId, systemClock, vetNewEndpoint } from '@petrel/core';
import { log } from '@petrel/observability';
import { createAttachmentFetcher } from '@petrel/mailer';
import type { ApiContext } from './api-context.js';
import { domainClaimPolicy } from './routes/domain-claims.routes.js';

/** Received emails' reads and downloads, sent emails' attachments and shares: one key, one URL. */
export const links = (ctx: ApiContext) => ({
  inbound: ctx.stores.inbound,
  secret: ctx.secret,
  publicUrl: ctx.publicUrl,
  clock: systemClock,
});

export const sharing = (ctx: ApiContext) => ({
  ...links(ctx),
  emails: ctx.stores.emails,
  broadcastEmails: ctx.broadcastEmails,
});

/** Contacts, their segments and topic choices, segments (and legacy audiences). */
export const audience = ({ stores: s }: ApiContext) => ({
  contacts: s.contacts,
  segments: s.segments,
  properties: s.contactProperties,
  topics: s.topics,
});

export const domains = (ctx: ApiContext) => ({
  domains: ctx.stores.domains,
  dns: ctx.domainDns,
  targets: domainDnsTargets(ctx.config),
  dkim: dkimSettings(ctx.config),
  clock: Date,
});

export const domainClaims = (ctx: ApiContext) => ({
  ...domains(ctx),
  claims: ctx.stores.domainClaims,
  policy: domainClaimPolicy(ctx.config),
});

export const inboxes = ({ stores: s, config, defaultTeamId }: ApiContext) => ({
  inboxes: s.inboxes,
  domains: s.domains,
  inbound: s.inbound,
  emails: s.emails,
  inboundDomains: config.INBOUND_DOMAINS,
  defaultTeamId,
  agentRunner: config.INBOX_AGENT_URL !== undefined,
});

export const inboxDrafts = ({ stores: s, config, accept, sendIdempotency }: ApiContext) => ({
  inboxes: s.inboxes,
  drafts: s.inboxDrafts,
  accept,
  idempotency: sendIdempotency,
  inbound: s.inbound,
  emails: s.emails,
  fetcher: createAttachmentFetcher({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
});

export const emailMetrics = ({ stores: s }: ApiContext) => ({
  metrics: {
    ...s.emailMetrics,
    domains: s.domains,
    broadcasts: s.broadcasts,
    clock: Date,
  },
  analytics: {
    broadcasts: s.broadcasts,
    analytics: s.broadcastAnalytics,
  },
});

export const logs = (ctx: ApiContext) => ({
  reader: ctx.stores.requestLogs,
  policy: ctx.requestLogPolicy,
  clock: Date,
});

export const broadcasts = ({ stores: s, queues }: ApiContext) => ({
  broadcasts: s.broadcasts,
  segments: s.segments,
  topics: s.topics,
  fanout: queues.fanout,
  clock: Date,
});

export const webhooks = ({ stores: s, queues, config, webhookResolver }: ApiContext) => ({
  store: s.webhooks,
  queue: queues.webhookDelivery,
  clock: Date,
  rotationGraceMs: config.WEBHOOK_SECRET_ROTATION_GRACE_S * 1000,
  vet: (endpoint: string) =>
    vetNewEndpoint(endpoint, {
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      resolve: webhookResolver,
    }),
});

/** Custom events; durable hand-over: the event's job is in Redis before the 202. */
export const events = ({ stores: s, sendIdempotency, queues }: ApiContext) => ({
  events: s.customEvents,
  contacts: s.contacts,
  properties: s.contactProperties,
  idempotency: sendIdempotency,
  triggers: queues.automation,
  clock: Date,
});

export const unsubscribe = ({ stores: s, secret }: ApiContext) => ({
  contacts: s.contacts,
  topics: s.topics,
  recipients: s.recipientStates,
  emails: s.emails,
  secret,
  clock: systemClock,
  ids: { newEventId: () => newId() },
});

/** Open pixels and tracked links: signed with the same key, recorded through the email records. */
export const tracking = ({ stores: s, secret }: ApiContext) =>
  engagementTracker({
    emails: s.emails,
    secret,
    clock: systemClock,
    ids: { newEventId: () => newId() },
    onRecordError: (err) => log().warn({ err }, 'an open or click could not be recorded'),
  });

export const usage = ({ stores: s, config }: ApiContext) => ({
  reader: s.usage,
  // the same defaults the limits are enforced with (rate-limit middleware, daily-quota stage)
  defaults: { rps: config.RATE_LIMIT_RPS, dailyQuota: config.DAILY_QUOTA },
  clock: Date,
});

/**
 * Every route of the API in two lists, built from the process's context: `apiRoutes`, served
 * with an API key (besides /emails and /api-keys, which app.ts mounts first), and `linkRoutes`,
 * served without one (the credential is the signed URL; their errors are pages for a person).
 * A feature adds its line to one of them (its dependencies, when more than a store or two, to
 * route-deps.ts); mountRoutes orders them, fixed paths first.
 */
import { engagementTracker, newId, systemClock, vetNewEndpoint } from '@petrel/core';
import { log } from '@petrel/observability';
import type { ApiContext } from './api-context.js';
import * as deps from './route-deps.js';
import type { RouteSpec } from './routes/route-table.js';
import { audiencesRoutes } from './routes/audiences.routes.js';
import { automationsRoutes } from './routes/automations.routes.js';
import { broadcastsRoutes } from './routes/broadcasts.routes.js';
import { contactImportsRoutes } from './routes/contact-imports.routes.js';
import { contactPropertiesRoutes } from './routes/contact-properties.routes.js';
import { contactTopicsRoutes } from './routes/contact-topics.routes.js';
import { contactsRoutes } from './routes/contacts.routes.js';
import { domainClaimsRoutes } from './routes/domain-claims.routes.js';
import { domainsRoutes } from './routes/domains.routes.js';
import { emailMetricsRoutes } from './routes/email-metrics.routes.js';
import { emailShareLinkRoutes } from './routes/email-share-links.routes.js';
import { emailShareRoutes } from './routes/email-share.routes.js';
import { eventsRoutes } from './routes/events.routes.js';
import { inboxDraftsRoutes } from './routes/inboxes/drafts.routes.js';
import { inboxesRoutes } from './routes/inboxes/inboxes.routes.js';
import { logsRoutes } from './routes/logs.routes.js';
import { receivingDownloadRoutes, receivingRoutes } from './routes/receiving.routes.js';
import { segmentsRoutes } from './routes/segments.routes.js';
import { statsRoutes } from './routes/stats.routes.js';
import { suppressionsRoutes } from './routes/suppressions.routes.js';
import { templatesRoutes } from './routes/templates.routes.js';
import { topicsRoutes } from './routes/topics.routes.js';
import { trackingRoutes } from './routes/tracking.routes.js';
import { unsubscribeRoutes } from './routes/unsubscribe.routes.js';
import { usageRoutes } from './routes/usage.routes.js';
import { webhooksRoutes } from './routes/webhooks.routes.js';

export function apiRoutes(ctx: ApiContext): RouteSpec[] {
  const { config, stores: s, queues: q } = ctx;
  const vet = { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, resolve: ctx.webhookResolver };
  return [
    ...templatesRoutes(s.templates),
    ...domainsRoutes(deps.domains(ctx)),
    ...domainClaimsRoutes(deps.domainClaims(ctx)),
    ...topicsRoutes(s.topics),
    ...suppressionsRoutes(s.suppressions),
    ...contactsRoutes(deps.audience(ctx)),
    ...contactTopicsRoutes(deps.audience(ctx)),
    ...segmentsRoutes(deps.audience(ctx)),
    ...audiencesRoutes(deps.audience(ctx)),
    ...contactPropertiesRoutes(s.contactProperties),
    ...contactImportsRoutes({
      store: s.contactImports,
      queue: q.imports,
      maxBytes: config.CONTACT_IMPORT_MAX_BYTES,
    }),
    ...broadcastsRoutes({
      broadcasts: s.broadcasts,
      segments: s.segments,
      topics: s.topics,
      fanout: q.fanout,
      clock: Date,
    }),
    ...webhooksRoutes({
      store: s.webhooks,
      queue: q.webhookDelivery,
      clock: Date,
      rotationGraceMs: config.WEBHOOK_SECRET_ROTATION_GRACE_S * 1000,
      vet: (endpoint) => vetNewEndpoint(endpoint, vet),
    }),
    ...automationsRoutes({ automations: s.automations, runs: s.automationRuns, clock: Date }),
    ...ctx.oauth.apiRoutes,
    ...receivingRoutes(deps.links(ctx)),
    ...emailShareRoutes(deps.sharing(ctx)),
    ...inboxesRoutes(deps.inboxes(ctx)),
    ...inboxDraftsRoutes(deps.inboxDrafts(ctx)),
    ...statsRoutes({ stats: s.emailStats, clock: Date }),
    ...emailMetricsRoutes(deps.emailMetrics(ctx)),
    ...logsRoutes(deps.logs(ctx)),
    ...usageRoutes(deps.usage(ctx)),
    // durable hand-over: the event's job is in Redis before the 202
    ...eventsRoutes({
      events: s.customEvents,
      contacts: s.contacts,
      properties: s.contactProperties,
      idempotency: ctx.sendIdempotency,
      triggers: q.automation,
      clock: Date,
    }),
  ];
}

export function linkRoutes(ctx: ApiContext): RouteSpec[] {
  const s = ctx.stores;
  return [
    ...ctx.oauth.publicRoutes,
    ...receivingDownloadRoutes(deps.links(ctx)),
    ...emailShareLinkRoutes(deps.sharing(ctx)),
    ...unsubscribeRoutes({
      contacts: s.contacts,
      topics: s.topics,
      recipients: s.recipientStates,
      emails: s.emails,
      secret: ctx.secret,
      clock: systemClock,
      ids: { newEventId: () => newId() },
    }),
    // open pixels and tracked links: signed with the same key, recorded through the email records
    ...trackingRoutes(
      engagementTracker({
        emails: s.emails,
        secret: ctx.secret,
        clock: { now: () => Date.now(), monotonicMs: () => performance.now() },
        ids: { newEventId: () => newId() },
        onRecordError: (err) => log().warn({ err }, 'an open or click could not be recorded'),
      }),
    ),
  ];
}

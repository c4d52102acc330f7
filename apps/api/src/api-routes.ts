/**
 * Every route of the API in two lists, built from the process's context: `apiRoutes`, served
 * with an API key (besides /emails and /api-keys, which app.ts mounts first), and `linkRoutes`,
 * served without one (the credential is the signed URL; their errors are pages for a person).
 * A feature adds its line to one of them (its dependencies, when more than a store or two, to
 * route-deps.ts); mountRoutes orders them, fixed paths first.
 */
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
    ...broadcastsRoutes(deps.broadcasts(ctx)),
    ...webhooksRoutes(deps.webhooks(ctx)),
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
    ...eventsRoutes(deps.events(ctx)),
  ];
}

export function linkRoutes(ctx: ApiContext): RouteSpec[] {
  return [
    ...ctx.oauth.publicRoutes,
    ...receivingDownloadRoutes(deps.links(ctx)),
    ...emailShareLinkRoutes(deps.sharing(ctx)),
    ...unsubscribeRoutes(deps.unsubscribe(ctx)),
    ...trackingRoutes(deps.tracking(ctx)),
  ];
}

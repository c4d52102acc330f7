/**
 * The accept path of POST /emails as every producer runs it — the API, SMTP submission, the
 * workers' automation emails and inbox-agent forwards: core's acceptance stages over the team's
 * stores (`redisPreparer`), and the three-step commit over the records, the outbox and the send
 * queues (`redisAcceptancePorts`, packages/store, which explains the steps), with this process's
 * idempotency metric. Composed here once, so every producer is held to the same stages.
 */
import type { AcceptPorts, ClaimResult, Preparer } from '@petrel/core';
import {
  redisAcceptancePorts,
  redisPreparer,
  type DomainsStore,
  type EmailsStore,
  type IdempotencyStore,
  type OutboxStore,
  type RateLimitStore,
  type TemplatesStore,
  type TopicsStore,
} from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { createAttachmentFetcher } from '@petrel/mailer';
import { allOf, metrics, zeroSeries } from '@petrel/observability';
import { apiEnv, domainsEnv, limitsEnv, queueEnv, recipientDomainsEnv, webhookEnv } from '@petrel/config';
import { need, type RuntimeConfig } from './config.js';

/** The variables of the accept path, which a process that accepts emails (API, SMTP) parses. */
export const acceptanceEnv = {
  ...queueEnv,
  // DAILY_QUOTA, MAX_RECIPIENTS_PER_EMAIL
  ...limitsEnv,
  // REFUSE_NON_MAIL_DOMAINS: recipients at reserved domains refused at acceptance
  ...recipientDomainsEnv,
  // the from-domain check (ENFORCE_VERIFIED_DOMAINS)
  ...domainsEnv,
  // attachments fetched by URL may not reach private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS)
  ...webhookEnv,
  IDEMPOTENCY_LOCK_MS: apiEnv.IDEMPOTENCY_LOCK_MS,
};

type StageDeps = Parameters<typeof redisPreparer>[0];

/** What a producer of its own emails may set differently (a report never counts in a quota…). */
export type StageOverrides = Partial<
  Pick<StageDeps, 'attachments' | 'enforceVerifiedDomains' | 'dailyQuota' | 'onDailyQuotaRefused'>
>;

/** The acceptance stages of POST /emails over the team's stores. */
export function acceptanceStages(
  config: RuntimeConfig,
  stores: {
    templates: TemplatesStore;
    topics: TopicsStore;
    domains: DomainsStore;
    limits: RateLimitStore;
  },
  o: StageOverrides = {},
): Preparer {
  return redisPreparer({
    ...stores,
    // SMTP submissions and the workers' emails carry their files as content: the fetcher only
    // serves the stage's contract for them
    attachments:
      o.attachments ??
      createAttachmentFetcher({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? false }),
    enforceVerifiedDomains: o.enforceVerifiedDomains ?? need(config, 'ENFORCE_VERIFIED_DOMAINS'),
    dailyQuota: o.dailyQuota ?? need(config, 'DAILY_QUOTA'),
    onDailyQuotaRefused: o.onDailyQuotaRefused ?? (() => metrics.rateLimited().inc({ kind: 'daily_quota' })),
    maxRecipients: config.MAX_RECIPIENTS_PER_EMAIL,
    // off unless REFUSE_NON_MAIL_DOMAINS; the simulator's domain is never refused
    nonMailDomains: config.REFUSE_NON_MAIL_DOMAINS ? { simulatorDomain: config.SIMULATOR_DOMAIN } : undefined,
  });
}

/** The ports of the accept-emails use-case, counting each Idempotency-Key outcome. */
export function acceptancePorts(deps: {
  emails: EmailsStore;
  idempotency: IdempotencyStore;
  outbox: OutboxStore;
  queues: SendQueues;
  /** The acceptance stages (`acceptanceStages`, or `acceptPreparer(...)` from core). */
  preparer: Preparer;
}): AcceptPorts {
  // every outcome's series from start-up: the API, SMTP server and workers count into the same
  // metric (a dashboard sums them)
  zeroSeries(metrics.idempotency(), {
    outcome: allOf<ClaimResult['outcome']>({ proceed: true, replay: true, mismatch: true, in_flight: true }),
  });
  return redisAcceptancePorts({
    ...deps,
    onIdempotency: (outcome) => metrics.idempotency().inc({ outcome }),
  });
}

/**
 * What a submission needs to accept an email: the API keys it authenticates with, and the
 * ports of the accept-emails use-case over the same stores and send queues as the HTTP API.
 */
import { type AcceptPorts, type RateLimiter } from '@petrel/core';
import {
  ApiKeysStore,
  EmailsStore,
  IdempotencyStore,
  OutboxStore,
  RateLimitStore,
  DomainsStore,
  TemplatesStore,
  TopicsStore,
  redisAcceptancePorts,
  redisPreparer,
} from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import { createAttachmentFetcher } from '@petrel/mailer';
import { emailRetentionMs, emailStoreOptions } from '@petrel/config';
import { metrics } from '@petrel/observability';
import type { SmtpContext } from '../context.js';

export interface SubmissionDeps {
  apiKeys: ApiKeysStore;
  accept: AcceptPorts;
  /** The team's request rate, shared with the API (C.13: SMTP shares the API rate limit). */
  limiter: RateLimiter;
  /** RATE_LIMIT_RPS. */
  defaultRps: number;
  close(): Promise<void>;
}

export async function submissionDeps(ctx: SmtpContext): Promise<SubmissionDeps> {
  const { redis, keys, config } = ctx;
  const retentionMs = emailRetentionMs(config);
  const idempotency = new IdempotencyStore(redis, keys, config.IDEMPOTENCY_LOCK_MS);
  const queues = new SendQueues(redis, {
    prefix: keys.bullPrefix(),
    shards: config.QUEUE_SHARDS,
    previousShards: config.QUEUE_SHARDS_PREVIOUS,
  });
  await queues.ready();
  const limits = new RateLimitStore(redis, keys);
  const accept = redisAcceptancePorts({
    emails: new EmailsStore(redis, keys, retentionMs, emailStoreOptions(config)),
    idempotency,
    outbox: new OutboxStore(redis, keys, idempotency),
    queues,
    // A submitted message carries its attachments: the fetcher only serves the stage's contract.
    preparer: redisPreparer({
      templates: new TemplatesStore(redis, keys, retentionMs),
      topics: new TopicsStore(redis, keys),
      attachments: createAttachmentFetcher({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }),
      domains: new DomainsStore(redis, keys),
      enforceVerifiedDomains: config.ENFORCE_VERIFIED_DOMAINS,
      limits,
      dailyQuota: config.DAILY_QUOTA,
      onDailyQuotaRefused: () => metrics.rateLimited().inc({ kind: 'daily_quota' }),
      maxRecipients: config.MAX_RECIPIENTS_PER_EMAIL,
    }),
    onIdempotency: (outcome) => metrics.idempotency().inc({ outcome }),
  });
  return {
    apiKeys: new ApiKeysStore(redis, keys),
    accept,
    limiter: limits,
    defaultRps: config.RATE_LIMIT_RPS,
    close: () => queues.close(),
  };
}

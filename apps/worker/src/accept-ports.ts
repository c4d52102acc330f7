/**
 * The accept path of POST /emails in a worker process (redisAcceptancePorts over the team's
 * stores and the send queues, with POST /emails' stages), for what the workers send on a team's
 * behalf: automation send_email steps and the inbox agent's forwards. One composition, so they
 * are held to the same stages (sending domain, suppressions, recipient cap, quota) as the API.
 */
import type { AcceptPorts } from '@petrel/core';
import {
  DomainsStore,
  EmailsStore,
  IdempotencyStore,
  OutboxStore,
  RateLimitStore,
  TopicsStore,
  redisAcceptancePorts,
  redisPreparer,
  type Keys,
  type RedisClient,
  type TemplatesStore,
} from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { createAttachmentFetcher } from '@petrel/mailer';
import { emailRetentionMs, emailStoreOptions } from '@petrel/config';
import { metrics } from '@petrel/observability';
import type { WorkerConfig } from './config.js';

export function workerAcceptPorts(
  config: WorkerConfig,
  deps: {
    redis: RedisClient;
    keys: Keys;
    templates: TemplatesStore;
    queues: SendQueues;
    /** How long an acceptance holds its Idempotency-Key (IdempotencyStore's lock). */
    acceptLockMs: number;
  },
): AcceptPorts {
  const { redis, keys } = deps;
  const idempotency = new IdempotencyStore(redis, keys, deps.acceptLockMs);
  return redisAcceptancePorts({
    emails: new EmailsStore(redis, keys, emailRetentionMs(config), emailStoreOptions(config)),
    idempotency,
    outbox: new OutboxStore(redis, keys, idempotency),
    queues: deps.queues,
    // the stages of POST /emails; the workers' emails carry files as content (a forward's are
    // the original's), so the fetcher only serves the stage's contract
    preparer: redisPreparer({
      templates: deps.templates,
      topics: new TopicsStore(redis, keys),
      attachments: createAttachmentFetcher({ allowPrivate: false }),
      domains: new DomainsStore(redis, keys),
      enforceVerifiedDomains: config.ENFORCE_VERIFIED_DOMAINS,
      limits: new RateLimitStore(redis, keys),
      dailyQuota: config.DAILY_QUOTA,
      onDailyQuotaRefused: () => metrics.rateLimited().inc({ kind: 'daily_quota' }),
      maxRecipients: config.MAX_RECIPIENTS_PER_EMAIL,
    }),
    onIdempotency: (outcome) => metrics.idempotency().inc({ outcome }),
  });
}

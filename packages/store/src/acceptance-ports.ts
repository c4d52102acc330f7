/**
 * Adapter: the ports of the accept-emails use-case (packages/core), implemented with the Redis
 * stores and the send queues — one implementation for every producer (the HTTP API, SMTP
 * submission). Wiring only — the rules live in the use-case and its stages.
 *
 * `commit` is three steps, because an email's record lives in its team's hash slot and its job
 * in its queue shard's slot, and Redis Cluster runs no transaction across slots (Redis Cluster
 * specification, "Keys hash tags"):
 *   1. records + outbox entries, one script in the team's slot (`EmailsStore.stage`);
 *   2. the jobs (`SendQueues.enqueue`; job id = email id, so repeating it is harmless);
 *   3. the outbox entries go, and the Idempotency-Key's response is stored, one MULTI in the
 *      team's slot (`OutboxStore.clear`).
 * The answer goes out after step 3, so an email answered 2xx — first time or replayed — has its
 * record and its job. A crash after step 1 leaves records whose outbox entries the scheduler's
 * outbox relay turns into jobs after OUTBOX_GRACE_MS; a retry with the same Idempotency-Key
 * recomputes the same ids and runs the steps again (each is idempotent).
 */
import {
  acceptPreparer,
  type AcceptPorts,
  type AcceptedEmail,
  type AttachmentFetcher,
  type ClaimResult,
  type Preparer,
  type TemplateLookup,
} from '@petrel/core';
import type { DomainsStore } from './domains.store.js';
import type { EmailsStore, NewEmail } from './emails.store.js';
import { dailyQuotaCounter, type RateLimitStore } from './rate-limit.store.js';
import type { TopicsStore } from './topics.store.js';
import { requestFingerprint, type IdempotencyStore } from './idempotency.store.js';
import type { OutboxStore } from './outbox.store.js';

/** The send queues as the commit uses them (`SendQueues` of packages/queue). */
export interface SendJobsPort {
  enqueue(
    lane: 'send',
    jobs: readonly { teamId: string; emailId: string; delayMs?: number }[],
  ): Promise<void>;
}

/**
 * Core's acceptance stages over the team's Redis stores, as every producer runs them (POST
 * /emails, SMTP submission, automation steps): composed once, so a new stage reaches them all.
 */
export function redisPreparer(deps: {
  templates: TemplateLookup;
  topics: TopicsStore;
  attachments: AttachmentFetcher;
  /** Only the domains' verification state is read: no DKIM key is opened. */
  domains: DomainsStore;
  /** ENFORCE_VERIFIED_DOMAINS. */
  enforceVerifiedDomains: boolean;
  limits: RateLimitStore;
  /** DAILY_QUOTA: the quota of a team without its own (0: none). */
  dailyQuota: number;
  /** Counts refusals for the quota (a metric). */
  onDailyQuotaRefused: () => void;
  /** MAX_RECIPIENTS_PER_EMAIL (unset: core's default). */
  maxRecipients?: number | undefined;
}): Preparer {
  return acceptPreparer({
    templates: deps.templates,
    topics: deps.topics,
    attachments: deps.attachments,
    sendingDomains: { domains: deps.domains, enforce: deps.enforceVerifiedDomains },
    dailyQuota: {
      counter: dailyQuotaCounter(deps.limits),
      defaultQuota: deps.dailyQuota,
      onRefused: deps.onDailyQuotaRefused,
    },
    maxRecipients: deps.maxRecipients,
  });
}

/** The claim token this adapter hands out: the Redis key and the owner that claimed it. */
type ClaimToken = { key: string; owner: string };

export function redisAcceptancePorts(deps: {
  emails: EmailsStore;
  idempotency: IdempotencyStore;
  outbox: OutboxStore;
  queues: SendJobsPort;
  /** The acceptance stages (`acceptPreparer(...)` from core). */
  preparer: Preparer;
  /** Counts Idempotency-Key outcomes (a metric). */
  onIdempotency?: (outcome: ClaimResult['outcome']) => void;
}): AcceptPorts {
  return {
    async claim(teamId, key, fingerprint) {
      const res = await deps.idempotency.claim(teamId, key, fingerprint);
      if (res.outcome !== 'proceed') return res;
      const token: ClaimToken = { key: deps.idempotency.redisKey(teamId, key), owner: res.owner };
      return { outcome: 'proceed', token, startedMs: res.startedMs };
    },
    async lookup(teamId, key, fingerprint) {
      const res = await deps.idempotency.lookup(teamId, key, fingerprint);
      return res.outcome === 'replay' ? { status: res.status, body: res.body } : undefined;
    },
    release: (token) => deps.idempotency.release(token as ClaimToken),
    prepare: (teamId, emails, endpoint, scope) => deps.preparer.prepare(teamId, emails, endpoint, scope),
    fingerprint: (endpoint, body) =>
      requestFingerprint('POST', endpoint === 'batch' ? '/emails/batch' : '/emails', body),
    onIdempotency: (outcome) => deps.onIdempotency?.(outcome),
    async commit(teamId, accepted, completion) {
      const createdAt = new Date();
      const emails = accepted.map((a) => toNewEmail(a, createdAt.getTime()));
      await deps.emails.stage(teamId, emails, createdAt);
      await deps.queues.enqueue(
        'send',
        accepted.map((a) => ({ teamId, emailId: a.id, ...(a.delayMs > 0 ? { delayMs: a.delayMs } : {}) })),
      );
      await deps.outbox.clear(
        teamId,
        emails.map((e) => ({ lane: e.lane, emailId: e.id, dueMs: e.dueMs })),
        completion && {
          claim: completion.token as ClaimToken,
          status: completion.status,
          body: completion.body,
        },
      );
    },
  };
}

function toNewEmail(a: AcceptedEmail, nowMs: number): NewEmail {
  return {
    id: a.id,
    content: a.content,
    status: a.status,
    lane: 'send',
    dueMs: a.delayMs > 0 ? nowMs + a.delayMs : 0,
    messageId: a.messageId,
    event: a.event,
    ...(a.template ? { template: a.template } : {}),
  };
}

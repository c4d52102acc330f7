/**
 * Adapter: the ports of the accept-emails use-case (packages/core), implemented with the Redis
 * stores and the send queues — one implementation for every producer (the HTTP API, SMTP
 * submission). Wiring only — the rules live in the use-case and its stages.
 *
 * `commit` is core's `commitAcceptance` (its order: stage → enqueue → clear, and why) over three
 * writes: 1. records + outbox entries, one script in the team's slot (`EmailsStore.stage`);
 * 2. the jobs (`SendQueues.enqueue`); 3. the outbox entries go and the Idempotency-Key's response
 * is stored, one MULTI in the team's slot (`OutboxStore.clear`).
 */
import {
  acceptPreparer,
  commitAcceptance,
  systemClock,
  type AcceptCommitPorts,
  type AcceptPorts,
  type AttachmentFetcher,
  type ClaimResult,
  type NonMailDomainsOptions,
  type Preparer,
  type TemplateLookup,
} from '@petrel/core';
import type { SendJobSpec } from '@petrel/contracts';
import type { DomainsStore } from './domains.store.js';
import type { EmailsStore } from './emails.store.js';
import { dailyQuotaCounter, type RateLimitStore } from './rate-limit.store.js';
import type { TopicsStore } from './topics.store.js';
import { requestFingerprint, type IdempotencyStore } from './idempotency.store.js';
import type { OutboxStore } from './outbox.store.js';

/** The send queues as the commit uses them (`SendQueues` of packages/queue). */
export interface SendJobsPort {
  enqueue(lane: 'send', jobs: readonly SendJobSpec[]): Promise<void>;
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
  /** REFUSE_NON_MAIL_DOMAINS (with SIMULATOR_DOMAIN, never refused); unset: no such stage. */
  nonMailDomains?: NonMailDomainsOptions | undefined;
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
    nonMailDomains: deps.nonMailDomains,
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
  const commitPorts: AcceptCommitPorts = {
    clock: systemClock,
    stage: (teamId, emails, createdAt, outbox) => deps.emails.stage(teamId, emails, createdAt, outbox),
    enqueue: (lane, jobs) => deps.queues.enqueue(lane, jobs),
    clear: (teamId, entries, completion) =>
      deps.outbox.clear(
        teamId,
        entries,
        completion && {
          claim: completion.token as ClaimToken,
          status: completion.status,
          body: completion.body,
        },
      ),
  };
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
    commit: (teamId, emails, completion) => commitAcceptance({ teamId, emails, completion }, commitPorts),
  };
}

/**
 * Adapter: the ports of the accept-emails use-case, implemented with the store and the send
 * queues. `commit` writes records, jobs and the idempotency completion in ONE Redis transaction.
 */
import type { Redis } from 'ioredis';
import { validationError, type EmailContent } from '@petrel/contracts';
import type { AcceptPorts, AcceptedEmail, Endpoint, PrepareResult } from '@petrel/core';
import { requestFingerprint, type EmailsStore, type IdempotencyStore, type NewEmail } from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { metrics } from '@petrel/observability';

export interface Preparer {
  prepare(
    teamId: string,
    emails: { index: number; email: EmailContent }[],
    endpoint?: Endpoint,
  ): Promise<PrepareResult>;
}

/** What a stage knows about the request: in a batch, messages name the email (`emails[i].`). */
export interface PrepareContext {
  batch: boolean;
}

/** Stages of preparation that later issues plug into (templates, topics, remote attachments). */
export type PrepareStage = (
  teamId: string,
  email: EmailContent,
  index: number,
  ctx: PrepareContext,
) => Promise<{ email: EmailContent; template?: { id: string; versionId: string } } | { error: string }>;

export function stagedPreparer(stages: PrepareStage[]): Preparer {
  return {
    async prepare(teamId, emails, endpoint = 'batch') {
      const ctx: PrepareContext = { batch: endpoint !== 'single' };
      const out: PrepareResult = { emails: [], errors: [] };
      await Promise.all(
        emails.map(async ({ index, email }) => {
          let current = email;
          let template: { id: string; versionId: string } | undefined;
          for (const stage of stages) {
            const r = await stage(teamId, current, index, ctx);
            if ('error' in r) {
              out.errors.push({ index, message: r.error });
              return;
            }
            current = r.email;
            template = r.template ?? template;
          }
          out.emails.push({ index, email: current, ...(template ? { template } : {}) });
        }),
      );
      out.emails.sort((a, b) => a.index - b.index);
      out.errors.sort((a, b) => a.index - b.index);
      return out;
    },
  };
}

/** Until the topics issue lands, a request with topic_id is refused rather than sent ignoring it. */
export const refuseTopics: PrepareStage = async (_teamId, email, index, ctx) =>
  email.topic_id
    ? { error: `${prefix(index, ctx.batch)}topic_id: topics are not supported by this server yet` }
    : { email };

export const prefix = (index: number, batch = true) => (batch ? `emails[${index}].` : '');

export function acceptancePorts(deps: {
  redis: Redis;
  emails: EmailsStore;
  idempotency: IdempotencyStore;
  queues: SendQueues;
  preparer: Preparer;
}): AcceptPorts {
  return {
    async claim(teamId, key, fingerprint) {
      const res = await deps.idempotency.claim(teamId, key, fingerprint);
      if (res.outcome === 'proceed') {
        return {
          outcome: 'proceed',
          token: { key: deps.idempotency.redisKey(teamId, key), owner: res.owner },
          startedMs: res.startedMs,
        };
      }
      return res;
    },
    async lookup(teamId, key, fingerprint) {
      const res = await deps.idempotency.lookup(teamId, key, fingerprint);
      return res.outcome === 'replay' ? { status: res.status, body: res.body } : undefined;
    },
    release: (token) => deps.idempotency.release(token as { key: string; owner: string }),
    prepare: (teamId, emails, endpoint) => deps.preparer.prepare(teamId, emails, endpoint),
    fingerprint: (endpoint, body) =>
      requestFingerprint('POST', endpoint === 'batch' ? '/emails/batch' : '/emails', body),
    onIdempotency: (outcome) => metrics.idempotency().inc({ outcome }),
    async commit(teamId, accepted: AcceptedEmail[], completion) {
      const multi = await deps.queues.multi();
      const createdAt = new Date();
      deps.emails.createIn(multi, teamId, accepted.map(toNewEmail), createdAt);
      deps.queues.addSendJobsIn(
        multi,
        'send',
        accepted.map((a) => ({ teamId, emailId: a.id, ...(a.delayMs > 0 ? { delayMs: a.delayMs } : {}) })),
      );
      if (completion) {
        const token = completion.token as { key: string; owner: string };
        deps.idempotency.completeIn(multi, token, completion.status, completion.body);
      }
      const results = await multi.exec();
      if (!results) throw new Error('Redis transaction aborted');
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0];
    },
  };
}

function toNewEmail(a: AcceptedEmail): NewEmail {
  return {
    id: a.id,
    content: a.content,
    status: a.status,
    lane: 'send',
    messageId: a.messageId,
    event: a.event,
    ...(a.template ? { template: a.template } : {}),
  };
}

export { validationError };

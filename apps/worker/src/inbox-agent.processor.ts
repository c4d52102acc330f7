/**
 * The inbox agent in a worker process: the BullMQ worker of the agent queue running core's
 * runInboxAgent with the inbox store, the received emails' texts and the operator's model
 * (chat-completions.ts). Started only when INBOX_AGENT_URL is set. Every answer is logged and
 * counted (`petrel_inbox_agent_answers_total{outcome}`); a refused one with why, since a model
 * proposing what it may not do can mean the message it read was written to steer it.
 */
import { inboxAgentJobSchema, type InboxAgentJob } from '@petrel/contracts';
import {
  AGENT_ANSWER_OUTCOMES,
  AgentModelError,
  inboxAgentMail,
  newId,
  runInboxAgent,
  type AgentRunResult,
  type InboxAgentPorts,
} from '@petrel/core';
import { emailRetentionMs, inboxAgentEndpoint } from '@petrel/config';
import { InboundStore, InboxDraftsStore, InboxesStore, type Keys, type RedisClient } from '@petrel/store';
import { textFromHtml } from '@petrel/mailer';
import {
  UnrecoverableError,
  createInboxAgentWorker,
  parseJobData,
  type Job,
  type QueueConnection,
} from '@petrel/queue';
import { log, metrics, withLogContext, zeroSeries } from '@petrel/observability';
import { chatCompletionsModel } from './chat-completions.js';
import type { WorkerConfig } from './config.js';

export function inboxAgentProcessor(
  ports: InboxAgentPorts,
): (job: Job<InboxAgentJob>) => Promise<AgentRunResult> {
  return async (job) => {
    const data = parseJobData(inboxAgentJobSchema, job);
    const { v: _v, ...cmd } = data;
    return withLogContext({ jobId: job.id, ...cmd }, async () => {
      let result: AgentRunResult;
      try {
        result = await runInboxAgent(cmd, ports);
      } catch (err) {
        if (!(err instanceof AgentModelError)) throw err;
        metrics.inboxAgentAnswers().inc({ outcome: 'model_error' });
        log().warn(
          { err: err.message, retryable: err.retryable, attempt: job.attemptsMade + 1 },
          'inbox agent: the model did not answer',
        );
        throw err.retryable ? err : new UnrecoverableError(err.message);
      }
      if (result.outcome === 'skipped') {
        log().info({ why: result.why }, 'inbox agent: run skipped');
        return result;
      }
      metrics.inboxAgentAnswers().inc({ outcome: result.outcome });
      if (result.outcome === 'applied')
        log().info({ actions: result.actions }, 'inbox agent: actions applied');
      else if (result.outcome === 'no_action') log().info('inbox agent: nothing to do');
      else
        log().warn(
          { outcome: result.outcome, detail: result.detail },
          'inbox agent: answer refused, nothing changed',
        );
      return result;
    });
  };
}

/** The agent's worker, or nothing when no model endpoint is configured. */
export function startInboxAgent(
  config: WorkerConfig,
  deps: { redis: RedisClient; bullConnection: QueueConnection; keys: Keys },
): { close(): Promise<void> } | null {
  const endpoint = inboxAgentEndpoint(config);
  if (!endpoint) return null;
  const { redis, keys } = deps;
  const inbound = new InboundStore(redis, keys, emailRetentionMs(config));
  const inboxes = new InboxesStore(redis, keys);
  const ports: InboxAgentPorts = {
    inboxes,
    texts: {
      async of(teamId, message) {
        // an inbound message is its received email; outbound ones are not shown yet
        const email = message.direction === 'inbound' ? await inbound.get(teamId, message.id) : null;
        if (!email) return null;
        return email.text ?? (email.html ? textFromHtml(email.html) : null);
      },
    },
    model: chatCompletionsModel(endpoint),
    // a forward needs the send path's ports here; until then an answer proposing one is refused
    mail: inboxAgentMail({
      drafts: { inboxes, drafts: new InboxDraftsStore(redis, keys), clock: Date, ids: { newId } },
    }),
    clock: Date,
  };
  zeroSeries(metrics.inboxAgentAnswers(), { outcome: AGENT_ANSWER_OUTCOMES });
  const worker = createInboxAgentWorker(inboxAgentProcessor(ports), {
    connection: deps.bullConnection,
    prefix: keys.bullPrefix(),
    concurrency: config.INBOX_AGENT_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
  });
  worker.on('error', (err) => log().error({ err }, 'inbox agent worker error'));
  worker.on('failed', (job, err) =>
    log().warn({ jobId: job?.id, err: err.message }, 'inbox agent job failed'),
  );
  log().info({ url: endpoint.url, model: endpoint.model }, 'inbox agent started');
  return { close: () => worker.close() };
}

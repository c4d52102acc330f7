/**
 * The inbox agent in a worker process: the BullMQ worker of the agent queue running core's
 * runInboxAgent with the inbox store, the messages' texts, the operator's model
 * (chat-completions.ts) and the inbox's draft and forward use-cases (forwards through the accept
 * path, accept-ports.ts). Started only when INBOX_AGENT_URL is set. Every answer is logged and
 * counted (`petrel_inbox_agent_answers_total{outcome}`); a refused one with why, since a model
 * proposing what it may not do can mean the message it read was written to steer it.
 */
import { inboxAgentJobSchema, type InboxAgentJob } from '@petrel/contracts';
import {
  AGENT_ANSWER_OUTCOMES,
  AgentActionRefused,
  AgentModelError,
  inboxAgentMail,
  newId,
  runInboxAgent,
  type AgentRunResult,
  type InboxAgentPorts,
} from '@petrel/core';
import { emailRetentionMs, emailStoreOptions, inboxAgentEndpoint } from '@petrel/config';
import {
  EmailsStore,
  InboundStore,
  InboxDraftsStore,
  InboxesStore,
  inboxMessageContent,
  type Keys,
  type RedisClient,
  type TemplatesStore,
} from '@petrel/store';
import { textFromHtml } from '@petrel/mailer';
import {
  SendQueues,
  UnrecoverableError,
  createInboxAgentWorker,
  parseJobData,
  type Job,
  type QueueConnection,
} from '@petrel/queue';
import { log, metrics, withLogContext, zeroSeries } from '@petrel/observability';
import { chatCompletionsModel } from './chat-completions.js';
import { workerAcceptPorts } from './accept-ports.js';
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
        if (err instanceof AgentActionRefused) {
          log().warn(
            { err: err.message, retryable: err.retryable, attempt: job.attemptsMade + 1 },
            'inbox agent: an action was refused, nothing changed',
          );
          throw err.retryable ? err : new UnrecoverableError(err.message);
        }
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

/**
 * How long a forward's acceptance holds its Idempotency-Key: a forward carries the original's
 * files (up to 25 MB), so longer than an automation step's. Short is still safe: a retry taking
 * over a live claim recomputes the same email id.
 */
const AGENT_ACCEPT_LOCK_MS = 30_000;

/** The agent's worker, or nothing when no model endpoint is configured. */
export async function startInboxAgent(
  config: WorkerConfig,
  deps: { redis: RedisClient; bullConnection: QueueConnection; keys: Keys; templates: TemplatesStore },
): Promise<{ close(): Promise<void> } | null> {
  const endpoint = inboxAgentEndpoint(config);
  if (!endpoint) return null;
  const { redis, keys } = deps;
  const inboxes = new InboxesStore(redis, keys);
  const content = inboxMessageContent({
    inbound: new InboundStore(redis, keys, emailRetentionMs(config)),
    emails: new EmailsStore(redis, keys, emailRetentionMs(config), emailStoreOptions(config)),
  });
  const sendQueues = new SendQueues(redis, {
    prefix: keys.bullPrefix(),
    shards: config.QUEUE_SHARDS,
    previousShards: config.QUEUE_SHARDS_PREVIOUS,
  });
  await sendQueues.ready();
  const ids = { newId: () => newId() };
  const ports: InboxAgentPorts = {
    inboxes,
    texts: {
      async of(teamId, message) {
        const { text, html } = await content.bodies(teamId, message);
        return text ?? (html ? textFromHtml(html) : null);
      },
    },
    model: chatCompletionsModel(endpoint),
    mail: inboxAgentMail({
      drafts: { inboxes, drafts: new InboxDraftsStore(redis, keys), clock: Date, ids },
      // forwards go through the accept path of POST /emails, as the API's forwards do
      send: {
        inboxes,
        accept: workerAcceptPorts(config, {
          redis,
          keys,
          templates: deps.templates,
          queues: sendQueues,
          acceptLockMs: AGENT_ACCEPT_LOCK_MS,
        }),
        content,
        clock: Date,
        ids,
      },
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
  return {
    async close() {
      await worker.close();
      await sendQueues.close();
    },
  };
}

/**
 * The inbox agent in a worker process: the BullMQ worker of the agent queue running
 * inboxAgentProcessor with the inbox store, the messages' texts, the operator's model
 * (chat-completions.ts) and the inbox's draft and forward use-cases (forwards through the
 * runtime's accept path, as the API's are). Started only when INBOX_AGENT_URL is set.
 */
import { AGENT_ANSWER_OUTCOMES, inboxAgentMail, newId, type InboxAgentPorts } from '@petrel/core';
import { inboxAgentEndpoint } from '@petrel/config';
import { textFromHtml } from '@petrel/mailer';
import { createInboxAgentWorker } from '@petrel/queue';
import { log, metrics, zeroSeries } from '@petrel/observability';
import type { Runtime } from '@petrel/runtime';
import { chatCompletionsModel } from './chat-completions.js';
import type { WorkerConfig } from './config.js';
import { jobWorkerOptions, logJobWorker } from './job-workers.js';
import { inboxAgentProcessor } from './inbox-agent.processor.js';

/**
 * How long a forward's acceptance holds its Idempotency-Key: a forward carries the original's
 * files (up to 25 MB), so longer than an automation step's. Short is still safe: a retry taking
 * over a live claim recomputes the same email id.
 */
const AGENT_ACCEPT_LOCK_MS = 30_000;

/** The agent's worker, or nothing when no model endpoint is configured. */
export async function startInboxAgent(
  config: WorkerConfig,
  rt: Runtime,
): Promise<{ close(): Promise<void> } | null> {
  const endpoint = inboxAgentEndpoint(config);
  if (!endpoint) return null;
  const { inboxes, inboxContent: content, inboxDrafts } = rt.stores;
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
      drafts: { inboxes, drafts: inboxDrafts, clock: Date, ids },
      // forwards go through the accept path of POST /emails, as the API's forwards do
      send: {
        inboxes,
        accept: await rt.acceptance({ lockMs: AGENT_ACCEPT_LOCK_MS }),
        content,
        clock: Date,
        ids,
      },
    }),
    clock: Date,
  };
  zeroSeries(metrics.inboxAgentAnswers(), { outcome: AGENT_ANSWER_OUTCOMES });
  const worker = logJobWorker(
    createInboxAgentWorker(
      inboxAgentProcessor(ports),
      jobWorkerOptions(config, rt, config.INBOX_AGENT_CONCURRENCY),
    ),
    'inbox agent',
  );
  log().info({ url: endpoint.url, model: endpoint.model }, 'inbox agent started');
  return { close: () => worker.close() };
}

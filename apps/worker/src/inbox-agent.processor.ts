/**
 * The inbox agent's job processor: core's runInboxAgent for one job (inbox-agent.ts starts its
 * worker). Every answer is logged and counted (`petrel_inbox_agent_answers_total{outcome}`); a
 * refused one with why, since a model proposing what it may not do can mean the message it read
 * was written to steer it.
 */
import { inboxAgentJobSchema, type InboxAgentJob } from '@petrel/contracts';
import {
  AgentActionRefused,
  AgentModelError,
  runInboxAgent,
  type AgentRunResult,
  type InboxAgentPorts,
} from '@petrel/core';
import { UnrecoverableError, parseJobData, type Job } from '@petrel/queue';
import { log, metrics, withLogContext } from '@petrel/observability';

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

/**
 * The inbox agent's model: one POST to an OpenAI-compatible chat-completions endpoint
 * (https://platform.openai.com/docs/api-reference/chat/create) in JSON mode
 * (`response_format: {"type": "json_object"}`), answering the first choice's content.
 *
 * The URL is the operator's (INBOX_AGENT_URL), not a tenant's, so it is called as given — no
 * private-address check as webhooks have; redirects are refused rather than followed, so the
 * key is sent only where the operator pointed it. Each call has a deadline
 * (INBOX_AGENT_TIMEOUT_MS, `AbortSignal.timeout`, over the whole exchange); what failed is
 * sorted for the job's retries (core's AgentModelError): a timeout, the network, 408, 429 and
 * 5xx are worth another attempt, any other answer is not.
 */
import { AgentModelError, type ChatMessage, type ChatModel } from '@petrel/core';
import { z } from '@petrel/config';

const completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 429 || status >= 500;

export function chatCompletionsModel(endpoint: {
  url: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
}): ChatModel {
  return {
    async complete(messages: readonly ChatMessage[]): Promise<string> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
      let status: number;
      let body: string;
      try {
        const res = await fetch(endpoint.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            model: endpoint.model,
            messages,
            response_format: { type: 'json_object' },
            // the same thread should get the same triage
            temperature: 0,
          }),
          redirect: 'error',
          signal: AbortSignal.timeout(endpoint.timeoutMs),
        });
        status = res.status;
        body = await res.text();
      } catch (err) {
        const e = err as Error;
        const why = e.name === 'TimeoutError' ? `no answer within ${endpoint.timeoutMs} ms` : e.message;
        throw new AgentModelError(`the model endpoint failed: ${why}`, true);
      }
      if (status < 200 || status > 299)
        throw new AgentModelError(`the model endpoint answered ${status}`, RETRYABLE_STATUS(status));
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        throw new AgentModelError('the model endpoint answered something other than JSON', false);
      }
      const parsed = completion.safeParse(json);
      if (!parsed.success)
        throw new AgentModelError('the model endpoint answered no choices[0].message', false);
      // a choice without content (a refusal, a tool call) is an answer that is no JSON object
      return parsed.data.choices[0]!.message.content ?? '';
    },
  };
}

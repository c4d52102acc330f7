/**
 * send: the SMTP attempt. The sender never rejects for an SMTP outcome, so whatever happens the
 * next stage has a result to record; anything it does throw (a bug) fails the job attempt.
 *
 * Several messages (one per recipient) go out at once over the pool and their results are read
 * as the replies of one transaction with several RCPT TO (RFC 5321 section 3.3): {@link combine}.
 */
import type { RejectedRecipient, SendResult } from '../ports.js';
import type { DeliverStage } from '../stage.js';

export const send: DeliverStage<'messages'> = {
  name: 'send',
  needs: ['messages'],
  async run(ctx, deps) {
    // an argument, not a field spread into each message: no copy per email
    const origin = { teamId: ctx.job.teamId, from: ctx.content?.from ?? '' };
    const results = await Promise.all(
      ctx.messages.map(async (message) => {
        const started = deps.clock.monotonicMs();
        const result = await deps.smtp.send(message, origin);
        deps.observer.onSmtpResult(result, (deps.clock.monotonicMs() - started) / 1000);
        return result;
      }),
    );
    // the test addresses simulate answered count as recipients of the same transaction
    const simulated = ctx.simulated ?? [];
    ctx.result = combine(
      [...results, ...simulated.map((s) => s.result)],
      [...ctx.messages.map((m) => m.envelope.to), ...simulated.map((s) => [s.address])],
    );
  },
};

/**
 * The results of per-recipient messages as one: all sent → sent; none sent → a soft fail if any
 * was temporary (a retry may get through), else the first hard fail; some sent → sent, the
 * others listed as refused (permanently or not). A message that reached someone is never sent
 * again to reach the rest: that would deliver it twice.
 */
export function combine(
  results: readonly SendResult[],
  envelopes: readonly (readonly string[])[],
): SendResult {
  if (results.length === 1) return results[0]!;
  const sent = results.filter((r) => r.kind === 'sent');
  if (sent.length === 0) {
    // a deferral stands for the whole email only when no server was asked for any recipient: a
    // real temporary refusal elsewhere is an attempt
    const soft = results.filter((r) => r.kind === 'soft_fail');
    return soft.find((r) => !r.deferred) ?? soft[0] ?? results[0]!;
  }
  const rejected: RejectedRecipient[] = [];
  results.forEach((r, i) => {
    if (r.kind === 'sent') {
      rejected.push(...(r.rejected ?? []));
      return;
    }
    for (const address of envelopes[i]!) {
      rejected.push({
        address,
        ...(r.code !== undefined ? { code: r.code } : {}),
        ...(r.enhancedCode !== undefined ? { enhancedCode: r.enhancedCode } : {}),
        permanent: r.kind === 'hard_fail',
        detail: r.detail,
        ...(r.kind === 'soft_fail' && r.deferred && { deferred: true as const }),
      });
    }
  });
  const first = sent[0] as Extract<SendResult, { kind: 'sent' }>;
  return {
    kind: 'sent',
    code: first.code,
    response: first.response,
    ...(rejected.length ? { rejected } : {}),
  };
}

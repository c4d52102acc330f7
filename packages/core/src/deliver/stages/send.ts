/**
 * send: one SMTP attempt. The sender never rejects for an SMTP outcome, so whatever happens the
 * next stage has a result to record; anything it does throw (a bug) fails the job attempt.
 */
import type { DeliverStage } from '../stage.js';

export const send: DeliverStage<'message'> = {
  name: 'send',
  needs: ['message'],
  async run(ctx, deps) {
    const started = deps.clock.monotonicMs();
    const result = await deps.smtp.send(ctx.message);
    deps.observer.onSmtpResult(result, (deps.clock.monotonicMs() - started) / 1000);
    ctx.result = result;
  },
};

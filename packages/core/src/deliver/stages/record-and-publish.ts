/**
 * record-and-publish: what the SMTP server said, written to the record (events on the timeline,
 * published for webhooks, the status moved forward, the attempt counted), the recipients refused
 * while the others got the message included. Through the `outcomes` port: once the server has
 * answered, this write is what stands between a Redis blip and a duplicate send.
 */
import { decideAttempt } from '../attempt-decision.js';
import { emailEvent } from '../email-event.js';
import type { DeliverStage } from '../stage.js';

export const recordAndPublish: DeliverStage<'result' | 'recipients'> = {
  name: 'record-and-publish',
  needs: ['result', 'recipients'],
  async run(ctx, deps) {
    const { job, email } = ctx;
    const decision = decideAttempt({
      result: ctx.result,
      recipients: ctx.recipients,
      attemptsMade: job.attemptsMade,
      retries: deps.retries,
      status: email.status,
    });
    const fields = { attempts: String(email.attempts + 1) };
    if (decision.events.length === 0) {
      await deps.outcomes.setFields(job.teamId, email.id, fields);
    } else {
      const items = decision.events.map((e) => ({
        status: e.status,
        event: emailEvent(e.type, job.teamId, email, e.data, deps),
      }));
      await deps.outcomes.recordEvents(job.teamId, email.id, items, fields);
    }
    return decision.outcome;
  },
};

/**
 * The deliver-email use-case: one send job = one email through the delivery stages. It owns the
 * order of the steps and what each outcome records; it never touches Redis, SMTP, the queue or
 * the logger itself (ports.ts). A job whose email is canceled, already delivered or terminal does
 * nothing: a re-run after a crash must not send twice.
 */
import type { EmailStatus } from '@petrel/contracts';
import type { DeliverOutcome } from './outcome.js';
import type { DeliveryJob } from './ports.js';
import type { DeliverDeps, DeliverStage, DeliveryContext } from './stage.js';
import { buildMime } from './stages/build-mime.js';
import { decideRecipients } from './stages/decide-recipients.js';
import { decorate } from './stages/decorate.js';
import { recordAndPublish } from './stages/record-and-publish.js';
import { render } from './stages/render.js';
import { resolveContent } from './stages/resolve-content.js';
import { send } from './stages/send.js';
import { sign } from './stages/sign.js';
import { simulate } from './stages/simulate.js';
import { softBounces } from './stages/soft-bounces.js';
import { track } from './stages/track.js';

/**
 * The delivery pipeline, in order; a feature grows it by one stage:
 * topic and suppression decisions refine decide-recipients' list, unsubscribe and tracking
 * headers join decorate, the test addresses are answered by `simulate` (stages/simulate.ts), DKIM
 * is the `sign` stage between build-mime and send (stages/sign.ts); what follows from a recorded
 * outcome runs after record-and-publish (soft-bounce streaks: stages/soft-bounces.ts).
 */
export const DELIVERY_STAGES: readonly DeliverStage[] = [
  resolveContent,
  decideRecipients,
  render,
  track,
  decorate,
  buildMime,
  simulate,
  sign,
  send,
  recordAndPublish,
  softBounces,
];

/** Statuses from which a send may (still) happen. */
const SENDABLE: ReadonlySet<EmailStatus> = new Set(['scheduled', 'queued', 'delivery_delayed']);

/**
 * Delivers the email of `job` through `stages` and reports the outcome to the observer. Errors
 * of the ports (an unreachable store) propagate: the job attempt fails and is retried.
 */
export async function deliverEmail(
  job: DeliveryJob,
  deps: DeliverDeps,
  stages: readonly DeliverStage[] = DELIVERY_STAGES,
): Promise<DeliverOutcome> {
  const loaded = await deps.emails.getForSend(job.teamId, job.emailId);
  if (!loaded) return observed(deps, { kind: 'missing' }, null);
  const { record: email, attachments } = loaded;
  if (!SENDABLE.has(email.status)) return observed(deps, { kind: 'skipped', status: email.status }, email);

  const ctx: DeliveryContext = { job, email, attachments };
  for (const stage of stages) {
    const missing = stage.needs.filter((k) => ctx[k] === undefined);
    if (missing.length > 0) {
      throw new Error(`delivery stage ${stage.name} runs before ${missing.join(', ')} is known`);
    }
    // the check above is what ContextWith<needs> promises the stage
    const outcome = await stage.run(ctx as Parameters<typeof stage.run>[0], deps);
    if (outcome) return observed(deps, outcome, email);
  }
  // record-and-publish leaves the recorded outcome for the stages after it (soft-bounces)
  if (ctx.outcome) return observed(deps, ctx.outcome, email);
  throw new Error('the delivery stages ended without an outcome');
}

function observed(deps: DeliverDeps, outcome: DeliverOutcome, email: DeliveryContext['email'] | null) {
  deps.observer.onOutcome(outcome, email);
  return outcome;
}

/**
 * simulate: the test addresses (simulator.ts) answered here instead of by an SMTP server. Each
 * one is taken out of the messages' envelopes (the headers keep it, as a Bcc is kept out of
 * them) and given the reply its local part asks for; `send` reads those replies with the real
 * ones as the replies of one transaction (RFC 5321 section 3.3), so record-and-publish records
 * them — events, per-recipient outcomes, the suppression of a hard bounce — exactly as it records
 * a server's. A message left with nobody to send to is not sent: no SMTP connection is made.
 *
 * `suppressed@` is left out as an address on the suppression list is (an `email.suppressed`
 * event, listed as suppressed in the terminal event); with nobody else the email fails as when
 * every recipient is suppressed. `complained@` is delivered, and record-and-publish then records
 * the complaint and suppresses the address (origin `complaint`), as an ARF report would.
 */
import { DROP_MESSAGES } from '../../audience/recipient-decision.js';
import { mailboxKey } from '../../kernel/mailbox.js';
import { simulatedKind, simulatedReply } from '../simulator.js';
import type { DeliverStage, SimulatedRecipient } from '../stage.js';
import type { RecipientOutcome } from '../recipient-outcomes.js';
import { failDelivery } from './fail.js';

export const simulate: DeliverStage<'messages' | 'recipients'> = {
  name: 'simulate',
  needs: ['messages', 'recipients'],
  async run(ctx, deps) {
    const kinds = new Map<string, ReturnType<typeof simulatedKind>>();
    for (const r of ctx.recipients) kinds.set(mailboxKey(r), simulatedKind(r, deps.simulatorDomain));
    const kindOf = (address: string) => kinds.get(mailboxKey(address)) ?? null;
    if (![...kinds.values()].some((k) => k !== null)) return undefined;

    const simulated: SimulatedRecipient[] = [];
    const suppressed: RecipientOutcome[] = [];
    for (const address of ctx.recipients) {
      const kind = kindOf(address);
      if (kind === null) continue;
      if (kind === 'suppressed') {
        suppressed.push({
          email: address,
          status: 'suppressed',
          suppressed: { message: DROP_MESSAGES.suppressed, type: 'OnAccountSuppressionList' },
        });
      } else {
        simulated.push({
          address,
          result: simulatedReply(kind, ctx.job.attemptsMade),
          complaint: kind === 'complained',
        });
      }
    }
    ctx.messages = ctx.messages
      .map((m) => ({
        ...m,
        envelope: { ...m.envelope, to: m.envelope.to.filter((a) => kindOf(a) === null) },
      }))
      .filter((m) => m.envelope.to.length > 0);
    ctx.recipients = ctx.recipients.filter((a) => kindOf(a) !== 'suppressed');
    ctx.dropped = [...(ctx.dropped ?? []), ...suppressed];
    ctx.simulated = simulated;
    if (ctx.recipients.length === 0) {
      const reason = `no recipient left: ${suppressed.map((s) => `${s.email}: ${DROP_MESSAGES.suppressed}`).join('; ')}`;
      return failDelivery(ctx, deps, 'simulate', reason);
    }
    return undefined;
  },
};

import { BROADCAST_STATUSES } from '@petrel/contracts';
import { statusMachine } from './machine.js';

/**
 * A broadcast: a draft is edited, then scheduled (sending now is scheduling for now); at its due
 * time the fan-out starts (queued), pages through the segment and ends `sent`. Until the fan-out
 * ends it can be canceled; only what has not started can be deleted (spec 3.1, 4.2). The
 * protection rule (broadcasts/protection.ts) pauses a queued or sent one; a person resumes or
 * cancels it.
 */
export const BROADCAST_MACHINE = statusMachine({
  name: 'broadcast',
  statuses: BROADCAST_STATUSES,
  transitions: {
    draft: ['scheduled'],
    scheduled: ['queued', 'canceled'],
    // a fan-out resumed after a crash starts again from `queued`
    queued: ['queued', 'sent', 'canceled', 'paused'],
    // `sent` means the fan-out ended; its emails may still be going out, and the protection rule
    // may still pause them
    sent: ['paused'],
    canceled: [],
    // resumed: queued again, its fan-out job finishes it (→ sent) or goes on from its cursor
    paused: ['queued', 'canceled'],
  },
  guards: {
    editable: ['draft'],
    schedulable: ['draft'],
    cancellable: ['scheduled', 'queued', 'paused'],
    deletable: ['draft', 'scheduled'],
    startable: ['scheduled', 'queued'],
    /** A fan-out checkpoints and finishes only while the broadcast is still queued. */
    fanningOut: ['queued'],
    /** The protection rule pauses a broadcast whose emails are being created or sent. */
    pausable: ['queued', 'sent'],
    /** A person resumes a paused broadcast (POST /broadcasts/:id/resume). */
    resumable: ['paused'],
    /** Its emails not sent yet wait (the send path holds them) instead of going out. */
    held: ['paused'],
  },
});

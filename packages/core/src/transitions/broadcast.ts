import { BROADCAST_STATUSES } from '@petrel/contracts';
import { statusMachine } from './machine.js';

/**
 * A broadcast: a draft is edited, then scheduled (sending now is scheduling for now); at its due
 * time the fan-out starts (queued), pages through the segment and ends `sent`. Until the fan-out
 * ends it can be canceled; only what has not started can be deleted (spec 3.1, 4.2).
 */
export const BROADCAST_MACHINE = statusMachine({
  name: 'broadcast',
  statuses: BROADCAST_STATUSES,
  transitions: {
    draft: ['scheduled'],
    scheduled: ['queued', 'canceled'],
    // a fan-out resumed after a crash starts again from `queued`
    queued: ['queued', 'sent', 'canceled'],
    sent: [],
    canceled: [],
  },
  guards: {
    editable: ['draft'],
    schedulable: ['draft'],
    cancellable: ['scheduled', 'queued'],
    deletable: ['draft', 'scheduled'],
    startable: ['scheduled', 'queued'],
    /** A fan-out checkpoints and finishes only while the broadcast is still queued. */
    fanningOut: ['queued'],
  },
});

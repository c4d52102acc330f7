import { CONTACT_IMPORT_STATUSES } from '@petrel/contracts';
import { statusMachine } from './machine.js';

/**
 * A contact import: queued until a worker claims it (in_progress; a worker that takes over a
 * stalled job claims it again), then completed or failed, which are final.
 */
export const CONTACT_IMPORT_MACHINE = statusMachine({
  name: 'contactImport',
  statuses: CONTACT_IMPORT_STATUSES,
  transitions: {
    queued: ['in_progress', 'failed'],
    in_progress: ['in_progress', 'completed', 'failed'],
    completed: [],
    failed: [],
  },
  guards: {
    /** Claimed by a run (first, or again after its worker stalled); abandoned as failed. */
    unfinished: ['queued', 'in_progress'],
    finished: ['completed', 'failed'],
  },
});

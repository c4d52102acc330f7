import { AUTOMATION_RUN_STATUSES, AUTOMATION_RUN_STEP_STATUSES } from '@petrel/contracts';
import { statusMachine } from './machine.js';

/**
 * An automation run: running until its last step completes, a step fails, or it is cancelled
 * (its automation disabled or deleted). Nothing about a run changes once it stopped running.
 */
export const AUTOMATION_RUN_MACHINE = statusMachine({
  name: 'automationRun',
  statuses: AUTOMATION_RUN_STATUSES,
  transitions: {
    running: ['completed', 'failed', 'cancelled'],
    completed: [],
    failed: [],
    cancelled: [],
  },
  guards: {
    /** Every write to a run (a step's state, a wait, its end) needs it still running. */
    active: ['running'],
  },
});

/**
 * One step of a run: pending until the engine takes it, waiting (a delay or an event), then
 * completed, failed or skipped (a branch not taken). A step record moves only from the status
 * its writer read (a compare-and-set in the store).
 */
export const AUTOMATION_STEP_MACHINE = statusMachine({
  name: 'automationStep',
  statuses: AUTOMATION_RUN_STEP_STATUSES,
  transitions: {
    pending: ['running', 'waiting', 'completed', 'failed', 'skipped'],
    running: ['waiting', 'completed', 'failed'],
    waiting: ['completed', 'failed'],
    completed: [],
    failed: [],
    skipped: [],
  },
  guards: {
    /** Completing a step again does nothing once it completed or failed. */
    finished: ['completed', 'failed'],
  },
});

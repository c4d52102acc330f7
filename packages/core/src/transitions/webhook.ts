import { WEBHOOK_EVENT_STATUSES } from '@petrel/contracts';
import { statusMachine } from './machine.js';

/**
 * A webhook endpoint: enabled or disabled, by its owner (PATCH) either way, or disabled by its
 * delivery health (consecutive failures; spec: automatic disabling), which only disables one
 * that is enabled.
 */
export const WEBHOOK_ENDPOINT_MACHINE = statusMachine({
  name: 'webhook',
  statuses: ['enabled', 'disabled'],
  transitions: { enabled: ['disabled'], disabled: ['enabled'] },
  guards: {
    /** Events are delivered to it, and its health may disable it. */
    delivering: ['enabled'],
  },
});

/**
 * One event's delivery to one endpoint (its entry in the endpoint's event log): pending, then
 * attempting while it is tried and retried, then success or failed. A replay puts a finished
 * (or unfinished) entry back to pending; an entry whose endpoint is disabled or gone fails.
 */
export const WEBHOOK_EVENT_MACHINE = statusMachine({
  name: 'webhookEvent',
  statuses: WEBHOOK_EVENT_STATUSES,
  transitions: {
    pending: ['attempting', 'success', 'failed', 'pending'],
    attempting: ['attempting', 'success', 'failed', 'pending'],
    success: ['pending'],
    failed: ['pending'],
  },
  guards: {
    due: ['pending', 'attempting'],
    finished: ['success', 'failed'],
  },
});

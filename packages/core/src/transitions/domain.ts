import { DOMAIN_STATUSES, RECORD_STATUSES } from '@petrel/contracts';
import { movesBy, statusMachine } from './machine.js';

const CHECKED = RECORD_STATUSES.filter((s) => s !== 'not_started');

/**
 * A domain's DNS record: not looked up yet (`not_started`), then whatever each lookup finds —
 * found (`verified`), absent or wrong (`failed`), DNS trouble (`temporary_failure`), or waiting
 * for its next check (`pending`); a record never goes back to `not_started`.
 */
export const DOMAIN_RECORD_MACHINE = statusMachine({
  name: 'domainRecord',
  statuses: RECORD_STATUSES,
  transitions: movesBy(RECORD_STATUSES, () => CHECKED),
  guards: {
    /** A record a lookup has checked. */
    checked: CHECKED,
  },
});

/**
 * A domain's status is derived from its records (domains/domain-status.ts): once looked up, a
 * domain may move to any derived status but never back to `not_started`.
 */
export const DOMAIN_MACHINE = statusMachine({
  name: 'domain',
  statuses: DOMAIN_STATUSES,
  transitions: movesBy(DOMAIN_STATUSES, () => DOMAIN_STATUSES.filter((t) => t !== 'not_started')),
  guards: {},
});

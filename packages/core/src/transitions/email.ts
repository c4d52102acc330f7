import { EMAIL_STATUSES, type EmailStatus } from '@petrel/contracts';
import { movesBy, statusMachine } from './machine.js';

/**
 * An email's status only moves forward, in the order of EMAIL_STATUSES (events that arrive out
 * of order never move it back: a late `delivered` after `opened` keeps `opened`), and a
 * scheduled email may be canceled or rescheduled until its job runs.
 */
export const emailStatusRank = (s: EmailStatus): number => EMAIL_STATUSES.indexOf(s);

export const EMAIL_MACHINE = statusMachine({
  name: 'email',
  statuses: EMAIL_STATUSES,
  transitions: movesBy(EMAIL_STATUSES, (_, rank) => EMAIL_STATUSES.slice(rank + 1)),
  guards: {
    cancellable: ['scheduled'],
    reschedulable: ['scheduled'],
    /**
     * Its SMTP transaction has not happened yet: the stuck-email watchdog watches it (the
     * statuses ranked below `sent`).
     */
    unfinished: ['scheduled', 'queued', 'delivery_delayed'],
    /**
     * DELETE /emails/:id (a Petrel extension) removes it: its SMTP transaction is over (every
     * status from `sent` on). A scheduled one is canceled first; a queued one is refused.
     */
    deletable: EMAIL_STATUSES.slice(EMAIL_STATUSES.indexOf('sent')),
  },
});

/** The rank from which an email is finished: the first rank after every `unfinished` one. */
export const EMAIL_FINISHED_RANK = Math.max(...EMAIL_MACHINE.guards.unfinished.map(emailStatusRank)) + 1;

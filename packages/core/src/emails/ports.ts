/**
 * The ports of the scheduled-email use-cases (reschedule, cancel). EmailsStore and SendQueues
 * satisfy them; packages/testing has in-memory versions.
 */
import type { EmailEvent, EmailStatus, SendLane } from '@petrel/contracts';
import type { Clock } from '../kernel/clock.js';

/** The send lane an email's job lives on (transactional or broadcast), as contracts defines it. */
export type { SendLane };

/** What the use-cases read of an email record. */
export interface ScheduledEmailView {
  id: string;
  status: EmailStatus;
  lane: SendLane;
}

export interface EmailRecordsPort {
  get(teamId: string, emailId: string): Promise<ScheduledEmailView | null>;
  /** Set plain fields (no event); false when the email is gone. */
  setFields(teamId: string, emailId: string, fields: Record<string, string>): Promise<boolean>;
  /** Append `event` to the timeline (and publish it); the status moves only forward. */
  recordEvent(
    teamId: string,
    emailId: string,
    status: EmailStatus,
    event: EmailEvent,
  ): Promise<'moved' | 'kept' | 'missing'>;
  /** Atomic check-and-set: `canceled` only if the email was still scheduled. */
  cancelScheduled(
    teamId: string,
    emailId: string,
    event: EmailEvent,
  ): Promise<'canceled' | 'not_scheduled' | 'missing'>;
}

/** The delayed send jobs (job id = email id). */
export interface SendJobsPort {
  /** Move a delayed job to fire `delayMs` from now; false when there is no such job. */
  reschedule(lane: SendLane, emailId: string, delayMs: number): Promise<boolean>;
  /** Drop a waiting or delayed job; false when there is none. */
  remove(lane: SendLane, emailId: string): Promise<boolean>;
}

export interface ScheduledEmailPorts {
  emails: EmailRecordsPort;
  jobs: SendJobsPort;
  /** The instant of the change: the event's time and id, and the base of `scheduled_at`. */
  clock: Pick<Clock, 'now'>;
}

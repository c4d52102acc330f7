/**
 * In-memory email records and send jobs for unit tests of the scheduled-email use-cases
 * (reschedule, cancel, delete): the Redis store's forward-only status rule and its atomic
 * cancel-if-scheduled, and delayed jobs keyed by lane and email id as BullMQ keeps them.
 */
import type { EmailEvent, EmailStatus } from '@petrel/contracts';
import {
  canMove,
  EMAIL_MACHINE,
  guardAllows,
  type EmailDeleter,
  type EmailRecordsPort,
  type ScheduledEmailPorts,
  type ScheduledEmailView,
  type SendJobsPort,
  type SendLane,
} from '@petrel/core';

export interface MemoryEmail extends ScheduledEmailView {
  teamId: string;
  fields: Record<string, string>;
  events: EmailEvent[];
}

export class MemoryEmailRecords implements EmailRecordsPort, EmailDeleter {
  readonly emails = new Map<string, MemoryEmail>();

  private key = (teamId: string, id: string) => `${teamId}\n${id}`;

  /** Test setup: an email record with the given status (`send` lane unless told). */
  add(teamId: string, id: string, status: EmailStatus, lane: SendLane = 'send'): MemoryEmail {
    const email: MemoryEmail = { id, teamId, status, lane, fields: {}, events: [] };
    this.emails.set(this.key(teamId, id), email);
    return email;
  }

  find(teamId: string, id: string): MemoryEmail | undefined {
    return this.emails.get(this.key(teamId, id));
  }

  async get(teamId: string, id: string): Promise<ScheduledEmailView | null> {
    const e = this.find(teamId, id);
    return e ? { id: e.id, status: e.status, lane: e.lane } : null;
  }

  async setFields(teamId: string, id: string, fields: Record<string, string>): Promise<boolean> {
    const e = this.find(teamId, id);
    if (!e) return false;
    Object.assign(e.fields, fields);
    return true;
  }

  async recordEvent(teamId: string, id: string, status: EmailStatus, event: EmailEvent) {
    const e = this.find(teamId, id);
    if (!e) return 'missing' as const;
    e.events.push(event);
    if (!canMove(EMAIL_MACHINE, e.status, status)) return 'kept' as const;
    e.status = status;
    return 'moved' as const;
  }

  async cancelScheduled(teamId: string, id: string, event: EmailEvent) {
    const e = this.find(teamId, id);
    if (!e) return 'missing' as const;
    if (!guardAllows(EMAIL_MACHINE.guards.cancellable, e.status)) return 'not_scheduled' as const;
    e.status = 'canceled';
    e.events.push(event);
    return 'canceled' as const;
  }

  /** The store's delete: only while the status is deletable (EmailDeleter). */
  async deleteFinished(teamId: string, id: string) {
    const e = this.find(teamId, id);
    if (!e) return 'missing' as const;
    if (!guardAllows(EMAIL_MACHINE.guards.deletable, e.status)) return 'not_deletable' as const;
    this.emails.delete(this.key(teamId, id));
    return 'deleted' as const;
  }
}

export class MemorySendJobs implements SendJobsPort {
  /** Delayed jobs: `lane:emailId` → delay in ms when last (re)scheduled. */
  readonly delayed = new Map<string, number>();
  /** Makes `remove` reject (a queue that is briefly unavailable). */
  failRemove = false;

  /** Test setup: a delayed job for the email. */
  add(lane: SendLane, emailId: string, delayMs: number): void {
    this.delayed.set(`${lane}:${emailId}`, delayMs);
  }

  async reschedule(lane: SendLane, emailId: string, delayMs: number): Promise<boolean> {
    const key = `${lane}:${emailId}`;
    if (!this.delayed.has(key)) return false;
    this.delayed.set(key, Math.max(0, delayMs));
    return true;
  }

  async remove(lane: SendLane, emailId: string): Promise<boolean> {
    if (this.failRemove) throw new Error('queue unavailable');
    return this.delayed.delete(`${lane}:${emailId}`);
  }
}

/** The ports of the scheduled-email use-cases (at `clock`), plus handles on them for assertions. */
export function memoryScheduledEmailPorts(clock: ScheduledEmailPorts['clock']): ScheduledEmailPorts & {
  emails: MemoryEmailRecords;
  jobs: MemorySendJobs;
} {
  return { emails: new MemoryEmailRecords(), jobs: new MemorySendJobs(), clock };
}

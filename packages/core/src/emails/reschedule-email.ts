/**
 * Use-case: move a scheduled email to another time (PATCH /emails/:id). Only an
 * email that is still scheduled can move; the delayed job moves first, so an email whose job
 * already fired is refused instead of getting a record that disagrees with the queue.
 */
import { notFound, validationError } from '@petrel/contracts';
import { newEmailId } from '../kernel/ids.js';
import { EMAIL_MACHINE, guardAllows } from '../transitions/index.js';
import { parseScheduledAt } from '../validation/index.js';
import type { ScheduledEmailPorts } from './ports.js';

export interface RescheduleEmailCommand {
  teamId: string;
  emailId: string;
  /** ISO 8601 or natural language, as the client sent it. */
  scheduledAt: string;
}

export async function rescheduleEmail(
  cmd: RescheduleEmailCommand,
  ports: ScheduledEmailPorts,
): Promise<{ id: string; scheduledAt: string }> {
  const { teamId } = cmd;
  const nowMs = ports.clock.now();
  const when = parseScheduledAt(cmd.scheduledAt, nowMs);
  if (!when.ok) throw validationError(`scheduled_at: ${when.message}`);
  const rec = await ports.emails.get(teamId, cmd.emailId);
  if (!rec) throw notFound('Email');
  if (!guardAllows(EMAIL_MACHINE.guards.reschedulable, rec.status)) {
    throw validationError(`Only scheduled emails can be rescheduled; this email is ${rec.status}`);
  }
  const moved = await ports.jobs.reschedule(rec.lane, rec.id, Date.parse(when.iso) - nowMs);
  if (!moved) throw validationError('This email is no longer scheduled');
  await ports.emails.setFields(teamId, rec.id, { scheduled_at: when.iso });
  await ports.emails.recordEvent(teamId, rec.id, 'scheduled', {
    id: newEmailId(nowMs),
    type: 'email.rescheduled',
    created_at: new Date(nowMs).toISOString(),
    teamId,
    data: { email_id: rec.id, scheduled_at: when.iso },
  });
  return { id: rec.id, scheduledAt: when.iso };
}

/**
 * Use-case: cancel a scheduled email (POST /emails/:id/cancel). The record says
 * canceled first (atomically, only if still scheduled), so a job that fires meanwhile finds a
 * canceled email and sends nothing; then the job is dropped. Dropping it is best effort: a job
 * left behind does nothing.
 */
import { notFound, validationError } from '@petrel/contracts';
import { newEmailId } from '../kernel/ids.js';
import type { ScheduledEmailPorts } from './ports.js';

export interface CancelEmailCommand {
  teamId: string;
  emailId: string;
}

export async function cancelEmail(
  cmd: CancelEmailCommand,
  ports: ScheduledEmailPorts,
): Promise<{ id: string }> {
  const { teamId, emailId } = cmd;
  const nowMs = ports.clock.now();
  const rec = await ports.emails.get(teamId, emailId);
  if (!rec) throw notFound('Email');
  const outcome = await ports.emails.cancelScheduled(teamId, emailId, {
    id: newEmailId(nowMs),
    type: 'email.canceled',
    created_at: new Date(nowMs).toISOString(),
    teamId,
    data: { email_id: emailId },
  });
  if (outcome !== 'canceled') {
    throw validationError(`Only scheduled emails can be canceled; this email is ${rec.status}`);
  }
  await ports.jobs.remove(rec.lane, emailId).catch(() => false);
  return { id: emailId };
}

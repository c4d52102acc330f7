import { describe, expect, it } from 'vitest';
import { memoryScheduledEmailPorts } from '@petrel/testing';
import { rescheduleEmail } from './reschedule-email.js';

const now = new Date('2026-11-21T10:00:00.000Z');
const inTwoHours = new Date(now.getTime() + 2 * 3_600_000).toISOString();

function setup(status: 'scheduled' | 'sent' = 'scheduled') {
  const ports = memoryScheduledEmailPorts({ now: () => now.getTime() });
  ports.emails.add('team', 'e1', status, 'broadcast');
  if (status === 'scheduled') ports.jobs.add('broadcast', 'e1', 3_600_000);
  return ports;
}

const cmd = (scheduledAt: string, emailId = 'e1') => ({ teamId: 'team', emailId, scheduledAt });

describe('rescheduleEmail', () => {
  it('moves the job on its lane, then the record, then records email.rescheduled', async () => {
    const ports = setup();
    expect(await rescheduleEmail(cmd(inTwoHours), ports)).toEqual({ id: 'e1', scheduledAt: inTwoHours });
    expect(ports.jobs.delayed.get('broadcast:e1')).toBe(2 * 3_600_000);
    const rec = ports.emails.find('team', 'e1')!;
    expect(rec.fields).toEqual({ scheduled_at: inTwoHours });
    expect(rec.status).toBe('scheduled');
    expect(rec.events).toEqual([
      expect.objectContaining({
        type: 'email.rescheduled',
        created_at: now.toISOString(),
        teamId: 'team',
        data: { email_id: 'e1', scheduled_at: inTwoHours },
      }),
    ]);
  });

  it('accepts natural language, resolved against the command time', async () => {
    const ports = setup();
    const { scheduledAt } = await rescheduleEmail(cmd('in 3 hours'), ports);
    expect(Date.parse(scheduledAt) - now.getTime()).toBe(3 * 3_600_000);
  });

  it('refuses an unparsable or past time before reading anything', async () => {
    const ports = setup();
    await expect(rescheduleEmail(cmd('yesterday at noon', 'unknown'), ports)).rejects.toMatchObject({
      errorName: 'validation_error',
      message: expect.stringMatching(/^scheduled_at: /),
    });
  });

  it("is a 404 for an unknown email and for another team's email", async () => {
    const ports = setup();
    await expect(rescheduleEmail(cmd(inTwoHours, 'nope'), ports)).rejects.toMatchObject({
      statusCode: 404,
      errorName: 'not_found',
      message: 'Email not found',
    });
    await expect(rescheduleEmail({ ...cmd(inTwoHours), teamId: 'other' }, ports)).rejects.toMatchObject({
      errorName: 'not_found',
    });
  });

  it('refuses an email that is no longer scheduled, naming its status, and changes nothing', async () => {
    const ports = setup('sent');
    await expect(rescheduleEmail(cmd(inTwoHours), ports)).rejects.toMatchObject({
      message: 'Only scheduled emails can be rescheduled; this email is sent',
    });
    expect(ports.emails.find('team', 'e1')!.events).toEqual([]);
  });

  it('refuses when the job already fired (the record still says scheduled), without touching the record', async () => {
    const ports = setup();
    ports.jobs.delayed.clear();
    await expect(rescheduleEmail(cmd(inTwoHours), ports)).rejects.toMatchObject({
      message: 'This email is no longer scheduled',
    });
    expect(ports.emails.find('team', 'e1')!.fields).toEqual({});
  });
});

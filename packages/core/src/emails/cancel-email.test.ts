import { describe, expect, it } from 'vitest';
import { memoryScheduledEmailPorts } from '@petrel/testing';
import { cancelEmail } from './cancel-email.js';

const now = new Date('2026-11-21T10:00:00.000Z');
const cmd = (emailId = 'e1', teamId = 'team') => ({ teamId, emailId });

function setup(status: 'scheduled' | 'delivered' = 'scheduled') {
  const ports = memoryScheduledEmailPorts({ now: () => now.getTime() });
  ports.emails.add('team', 'e1', status);
  ports.jobs.add('send', 'e1', 60_000);
  return ports;
}

describe('cancelEmail', () => {
  it('marks the record canceled with an email.canceled event, then drops the job', async () => {
    const ports = setup();
    expect(await cancelEmail(cmd(), ports)).toEqual({ id: 'e1' });
    const rec = ports.emails.find('team', 'e1')!;
    expect(rec.status).toBe('canceled');
    expect(rec.events).toEqual([
      expect.objectContaining({
        type: 'email.canceled',
        created_at: now.toISOString(),
        data: { email_id: 'e1' },
      }),
    ]);
    expect(ports.jobs.delayed.size).toBe(0);
  });

  it('still succeeds when dropping the job fails: the canceled record makes the job a no-op', async () => {
    const ports = setup();
    ports.jobs.failRemove = true;
    expect(await cancelEmail(cmd(), ports)).toEqual({ id: 'e1' });
    expect(ports.emails.find('team', 'e1')!.status).toBe('canceled');
  });

  it("is a 404 for an unknown email and for another team's email", async () => {
    const ports = setup();
    await expect(cancelEmail(cmd('nope'), ports)).rejects.toMatchObject({ errorName: 'not_found' });
    await expect(cancelEmail(cmd('e1', 'other'), ports)).rejects.toMatchObject({ errorName: 'not_found' });
    expect(ports.emails.find('team', 'e1')!.status).toBe('scheduled');
  });

  it('refuses an email that is not scheduled, keeping its job and status', async () => {
    const ports = setup('delivered');
    await expect(cancelEmail(cmd(), ports)).rejects.toMatchObject({
      statusCode: 422,
      errorName: 'validation_error',
      message: 'Only scheduled emails can be canceled; this email is delivered',
    });
    expect(ports.jobs.delayed.size).toBe(1);
  });

  it('a second cancel is refused (the email is canceled now)', async () => {
    const ports = setup();
    await cancelEmail(cmd(), ports);
    await expect(cancelEmail(cmd(), ports)).rejects.toMatchObject({
      message: 'Only scheduled emails can be canceled; this email is canceled',
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { EmailStatus } from '@petrel/contracts';
import { memoryScheduledEmailPorts } from '@petrel/testing';
import { deleteEmail } from './delete-email.js';

const now = new Date('2026-11-27T10:00:00.000Z');
const cmd = (emailId = 'e1', teamId = 'team') => ({ teamId, emailId });

function setup(status: EmailStatus) {
  const ports = memoryScheduledEmailPorts({ now: () => now.getTime() });
  ports.emails.add('team', 'e1', status);
  if (status === 'scheduled') ports.jobs.add('send', 'e1', 60_000);
  return ports;
}

describe('deleteEmail', () => {
  it.each(['sent', 'delivered', 'bounced', 'canceled'] as const)(
    'deletes an email that is %s',
    async (status) => {
      const ports = setup(status);
      expect(await deleteEmail(cmd(), ports)).toEqual({ object: 'email', id: 'e1', deleted: true });
      expect(ports.emails.find('team', 'e1')).toBeUndefined();
    },
  );

  it('cancels a scheduled email first (its job dropped), then deletes it', async () => {
    const ports = setup('scheduled');
    expect(await deleteEmail(cmd(), ports)).toEqual({ object: 'email', id: 'e1', deleted: true });
    expect(ports.emails.find('team', 'e1')).toBeUndefined();
    expect(ports.jobs.delayed.size).toBe(0);
  });

  it.each(['queued', 'delivery_delayed'] as const)(
    'refuses an email that is %s, naming the rule',
    async (status) => {
      const ports = setup(status);
      await expect(deleteEmail(cmd(), ports)).rejects.toMatchObject({
        statusCode: 422,
        errorName: 'validation_error',
        message: expect.stringMatching(
          new RegExp(
            `^Only emails that are scheduled or done sending \\(sent, .*\\) can be deleted; this email is ${status}`,
          ),
        ),
      });
      expect(ports.emails.find('team', 'e1')!.status).toBe(status);
    },
  );

  it("is a 404 for an unknown email and for another team's email", async () => {
    const ports = setup('delivered');
    await expect(deleteEmail(cmd('nope'), ports)).rejects.toMatchObject({ errorName: 'not_found' });
    await expect(deleteEmail(cmd('e1', 'other-team'), ports)).rejects.toMatchObject({
      errorName: 'not_found',
    });
    expect(ports.emails.find('team', 'e1')).toBeDefined();
  });
});

/**
 * The contract of core's EmailRecordsPort (packages/core/src/emails/ports.ts), what the
 * scheduled-email use-cases (reschedule, cancel) and the watchdog rely on, run against the
 * in-memory port and the Redis store: status moves forward only, cancel only while scheduled,
 * and every operation stays inside its team.
 */
import { expect, it } from 'vitest';
import type { EmailEvent, EmailStatus } from '@petrel/contracts';
import { newId, type EmailRecordsPort, type SendLane } from '@petrel/core';
import { describePortContract, type MakePort } from './kit.js';

export interface EmailRecordsContractPort {
  records: EmailRecordsPort;
  /** An email record of the team in `status` (as acceptance leaves it), on `lane`; its id. */
  seed(teamId: string, status: 'queued' | 'scheduled', lane: SendLane): Promise<string>;
}

export function emailEvent(teamId: string, type: EmailEvent['type']): EmailEvent {
  return { id: newId(), type, created_at: '2030-01-01T00:00:00.000Z', teamId, data: {} };
}

export function describeEmailRecordsContract(
  name: string,
  makePort: MakePort<EmailRecordsContractPort>,
): void {
  describePortContract(`EmailRecordsPort contract: ${name}`, makePort, (setup) => {
    it('reads an email with its status and lane; unknown or foreign is null', async () => {
      const { port, team, other } = setup();
      const id = await port.seed(team, 'scheduled', 'broadcast');
      expect(await port.records.get(team, id)).toMatchObject({ id, status: 'scheduled', lane: 'broadcast' });
      expect(await port.records.get(team, newId())).toBeNull();
      expect(await port.records.get(other, id)).toBeNull();
    });

    it('the status moves forward only; an event of an unknown or foreign email is missing', async () => {
      const { port, team, other } = setup();
      const id = await port.seed(team, 'queued', 'send');
      const move = (status: EmailStatus, type: EmailEvent['type'], t = team, emailId = id) =>
        port.records.recordEvent(t, emailId, status, emailEvent(t, type));
      expect(await move('sent', 'email.sent')).toBe('moved');
      expect(await move('delivered', 'email.delivered')).toBe('moved');
      expect(await move('delivery_delayed', 'email.delivery_delayed')).toBe('kept');
      expect(await move('sent', 'email.sent')).toBe('kept');
      expect(await port.records.get(team, id)).toMatchObject({ status: 'delivered' });
      expect(await move('bounced', 'email.bounced', other)).toBe('missing');
      expect(await move('sent', 'email.sent', team, newId())).toBe('missing');
      expect(await port.records.get(team, id)).toMatchObject({ status: 'delivered' });
    });

    it('cancel only while scheduled, once; a queued email is not_scheduled; unknown or foreign is missing', async () => {
      const { port, team, other } = setup();
      const scheduled = await port.seed(team, 'scheduled', 'send');
      const queued = await port.seed(team, 'queued', 'send');
      expect(await port.records.cancelScheduled(other, scheduled, emailEvent(other, 'email.canceled'))).toBe(
        'missing',
      );
      expect(await port.records.cancelScheduled(team, scheduled, emailEvent(team, 'email.canceled'))).toBe(
        'canceled',
      );
      expect(await port.records.get(team, scheduled)).toMatchObject({ status: 'canceled' });
      expect(await port.records.cancelScheduled(team, scheduled, emailEvent(team, 'email.canceled'))).toBe(
        'not_scheduled',
      );
      expect(await port.records.cancelScheduled(team, queued, emailEvent(team, 'email.canceled'))).toBe(
        'not_scheduled',
      );
      expect(await port.records.get(team, queued)).toMatchObject({ status: 'queued' });
      expect(await port.records.cancelScheduled(team, newId(), emailEvent(team, 'email.canceled'))).toBe(
        'missing',
      );
      // a canceled email stays canceled
      expect(await port.records.recordEvent(team, scheduled, 'sent', emailEvent(team, 'email.sent'))).toBe(
        'kept',
      );
    });

    it('setFields: true on an email of the team, false when unknown or foreign', async () => {
      const { port, team, other } = setup();
      const id = await port.seed(team, 'scheduled', 'send');
      const fields = { scheduled_at: '2030-02-01T00:00:00.000Z' };
      expect(await port.records.setFields(team, id, fields)).toBe(true);
      expect(await port.records.setFields(other, id, fields)).toBe(false);
      expect(await port.records.setFields(team, newId(), fields)).toBe(false);
    });
  });
}

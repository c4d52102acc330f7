import { describe, expect, it } from 'vitest';
import { emailToDeliver, memoryDeliverDeps } from '@petrel/testing';
import { deliverEmail } from './deliver-email.js';
import type { EmailToDeliver } from '../emails/record.js';
import { recordedRecipientOutcomes } from './recipient-outcomes.js';
import { SIMULATED_BOUNCE, simulatedKind } from './simulator.js';

describe('simulatedKind', () => {
  it('recognises the resend.dev test addresses, whatever the case, with or without a +label', () => {
    expect(simulatedKind('delivered@resend.dev')).toBe('delivered');
    expect(simulatedKind('Bounced@Resend.Dev')).toBe('bounced');
    expect(simulatedKind('complained+signup@resend.dev')).toBe('complained');
    expect(simulatedKind('SUPPRESSED+a+b@RESEND.DEV')).toBe('suppressed');
    expect(simulatedKind('delayed@resend.dev')).toBe('delayed');
    expect(simulatedKind('tempfail+x@resend.dev')).toBe('tempfail');
    expect(simulatedKind('Test <delivered+signup@resend.dev>')).toBe('delivered');
    expect(simulatedKind('delivered@resend.dev.')).toBe('delivered');
  });

  it('recognises the configured simulator domain only when configured', () => {
    expect(simulatedKind('bounced@sim.petrel.test')).toBeNull();
    expect(simulatedKind('bounced@sim.petrel.test', 'sim.petrel.test')).toBe('bounced');
    expect(simulatedKind('Delivered+x@SIM.petrel.test', 'sim.petrel.test')).toBe('delivered');
    expect(simulatedKind('delivered@resend.dev', 'sim.petrel.test')).toBe('delivered');
  });

  it('lookalikes and other local parts are real mail', () => {
    for (const address of [
      'delivered@resend.dev.evil.test',
      'delivered@evilresend.dev',
      'delivered@sub.resend.dev',
      'delivered@resend.devx',
      'deliveredx@resend.dev',
      'x+delivered@resend.dev',
      'ada@resend.dev',
      '@resend.dev',
      'delivered',
    ]) {
      expect(simulatedKind(address, 'sim.petrel.test'), address).toBeNull();
    }
    expect(simulatedKind('delivered@sim.petrel.test.evil.test', 'sim.petrel.test')).toBeNull();
  });
});

describe('the simulate stage', () => {
  const TEAM = 'team-1';
  function setup(to: string[]) {
    const deps = memoryDeliverDeps({ retries: 2 });
    const email = emailToDeliver({ content: { to } });
    deps.emails.put(email, []);
    return { deps, email };
  }
  const job = (email: EmailToDeliver, attemptsMade = 0) => ({
    teamId: TEAM,
    emailId: email.id,
    attemptsMade,
  });
  const types = (deps: ReturnType<typeof setup>['deps'], email: EmailToDeliver) =>
    deps.emails.timeline(TEAM, email.id).map((e) => e.type);

  it('delivered@: sent + delivered, nothing handed to SMTP', async () => {
    const { deps, email } = setup(['delivered+a@resend.dev']);
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(types(deps, email)).toEqual(['email.sent', 'email.delivered']);
    expect(deps.smtp.sent).toHaveLength(0);
  });

  it('bounced@: Permanent bounce with the 5.1.1 diagnostic, and the address suppressed (bounce)', async () => {
    const { deps, email } = setup(['bounced@resend.dev']);
    expect(await deliverEmail(job(email), deps)).toMatchObject({
      kind: 'bounced',
      bounce: 'Permanent',
      code: 550,
    });
    const bounced = deps.emails.timeline(TEAM, email.id).at(-1)!;
    expect(bounced.data.bounce).toEqual({
      type: 'Permanent',
      subType: 'General',
      message: SIMULATED_BOUNCE,
      diagnosticCode: [`smtp; ${SIMULATED_BOUNCE}`],
    });
    expect(deps.suppressions.suppressions.get('bounced@resend.dev')).toMatchObject({ origin: 'bounce' });
    expect(deps.smtp.sent).toHaveLength(0);
  });

  it('complained@: delivered, then complained, and the address suppressed (complaint)', async () => {
    const { deps, email } = setup(['complained@resend.dev']);
    await deliverEmail(job(email), deps);
    expect(types(deps, email)).toEqual(['email.sent', 'email.delivered', 'email.complained']);
    expect(deps.emails.get(TEAM, email.id)!.status).toBe('complained');
    expect(deps.suppressions.suppressions.get('complained@resend.dev')).toMatchObject({
      origin: 'complaint',
    });
  });

  it('suppressed@ alone: email.suppressed and email.failed, as when every recipient is suppressed', async () => {
    const { deps, email } = setup(['suppressed@resend.dev']);
    expect(await deliverEmail(job(email), deps)).toMatchObject({ kind: 'failed', stage: 'simulate' });
    expect(types(deps, email)).toEqual(['email.suppressed', 'email.failed']);
  });

  it('delayed@: delayed on the first attempt, delivered on the retry', async () => {
    const { deps, email } = setup(['delayed@resend.dev']);
    expect((await deliverEmail(job(email, 0), deps)).kind).toBe('delayed');
    expect(await deliverEmail(job(email, 1), deps)).toEqual({ kind: 'delivered' });
    expect(types(deps, email)).toEqual(['email.delivery_delayed', 'email.sent', 'email.delivered']);
  });

  it('tempfail@: delayed on every attempt, a Temporary bounce when the ladder is spent', async () => {
    const { deps, email } = setup(['tempfail@resend.dev']);
    expect((await deliverEmail(job(email, 0), deps)).kind).toBe('delayed');
    expect((await deliverEmail(job(email, 1), deps)).kind).toBe('delayed');
    expect(await deliverEmail(job(email, 2), deps)).toMatchObject({ kind: 'bounced', bounce: 'Temporary' });
    expect(deps.suppressions.suppressions.size).toBe(0);
  });

  it('mixed: only the real recipient reaches SMTP; every outcome is listed per recipient', async () => {
    const { deps, email } = setup(['ada@example.test', 'bounced@resend.dev', 'suppressed@resend.dev']);
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(deps.smtp.sent.map((m) => m.envelope.to)).toEqual([['ada@example.test']]);
    const outcomes = recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id));
    expect(outcomes?.map((o) => [o.email, o.status])).toEqual([
      ['ada@example.test', 'delivered'],
      ['bounced@resend.dev', 'bounced'],
      ['suppressed@resend.dev', 'suppressed'],
    ]);
    expect(deps.suppressions.suppressions.get('bounced@resend.dev')).toMatchObject({ origin: 'bounce' });
  });
});

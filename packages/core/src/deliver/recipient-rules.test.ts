/**
 * deliverEmail with the audience rules: the topic table of Resend's send API across to, cc and
 * bcc in one email, unsubscribed and suppressed recipients, an email nobody is left for,
 * per-recipient unsubscribe links, and hard bounces feeding the suppression list.
 */
import { describe, expect, it } from 'vitest';
import { emailToDeliver, memoryDeliverDeps } from '@petrel/testing';
import { deliverEmail } from './deliver-email.js';
import { recordedRecipientOutcomes } from './recipient-outcomes.js';
import type { EmailToDeliver } from '../emails/record.js';

const TEAM = 'team-1';
const job = (email: EmailToDeliver) => ({ teamId: TEAM, emailId: email.id, attemptsMade: 0 });

function topicEmail(topic_id: string | null) {
  return emailToDeliver({
    content: {
      to: ['In <in@x.test>', 'out@x.test'],
      cc: ['stranger@x.test', 'Unsub <unsub@x.test>'],
      bcc: ['quiet@x.test'],
      ...(topic_id ? { topic_id } : {}),
    },
  });
}

function setup(email: EmailToDeliver) {
  const deps = memoryDeliverDeps();
  deps.emails.put(email);
  deps.recipients
    .contact('in@x.test')
    .contact('OUT@X.test')
    .contact('unsub@x.test', { unsubscribed: true })
    .contact('quiet@x.test')
    .topic('news', 'opt_in', { 'in@x.test': 'opt_in', 'out@x.test': 'opt_out', 'unsub@x.test': 'opt_in' })
    .topic('digest', 'opt_out', { 'in@x.test': 'opt_in' });
  return deps;
}

describe('deliverEmail: topic, unsubscribe and suppression per recipient', () => {
  it('opt_in default: opted-in, non-contact and silent contact get it; opted-out and unsubscribed do not', async () => {
    const email = topicEmail('news');
    const deps = setup(email);
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    // one message per recipient, each with its own link
    const envelopes = deps.smtp.sent.map((m) => m.envelope.to);
    expect(envelopes).toEqual([['in@x.test'], ['stranger@x.test'], ['quiet@x.test']]);
    for (const m of deps.smtp.sent) {
      const raw = m.raw.toString();
      expect(raw).toContain(`List-Unsubscribe: <https://petrel.test/unsubscribe/${m.envelope.to[0]}/news>`);
      expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
      // headers no longer name the dropped recipients
      expect(raw).not.toContain('out@x.test');
      expect(raw).not.toContain('unsub@x.test');
      expect(raw).toContain('To: In <in@x.test>\r\n');
      expect(raw).toContain('Cc: stranger@x.test\r\n');
    }
    expect(recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id))).toEqual([
      { email: 'in@x.test', status: 'delivered' },
      { email: 'stranger@x.test', status: 'delivered' },
      { email: 'quiet@x.test', status: 'delivered' },
      { email: 'out@x.test', status: 'failed', failed: { reason: 'the contact opted out of the topic' } },
      {
        email: 'unsub@x.test',
        status: 'failed',
        failed: { reason: 'the contact unsubscribed from list and topic emails' },
      },
    ]);
    expect(deps.emails.get(TEAM, email.id)?.status).toBe('delivered');
  });

  it('opt_out default: only the contact who opted in gets it', async () => {
    const email = topicEmail('digest');
    const deps = setup(email);
    await deliverEmail(job(email), deps);
    expect(deps.smtp.sent.map((m) => m.envelope.to)).toEqual([['in@x.test']]);
    const outcomes = recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id)) ?? [];
    expect(outcomes.filter((o) => o.status === 'failed').map((o) => o.email)).toEqual([
      'out@x.test',
      'stranger@x.test',
      'unsub@x.test',
      'quiet@x.test',
    ]);
  });

  it('nobody left: nothing sent, the email fails with every reason', async () => {
    const email = emailToDeliver({
      content: { to: ['out@x.test'], cc: ['stranger@x.test'], topic_id: 'digest' },
    });
    const deps = setup(email);
    deps.recipients.topic('digest', 'opt_out', { 'out@x.test': 'opt_out' });
    const outcome = await deliverEmail(job(email), deps);
    expect(outcome).toMatchObject({ kind: 'failed', stage: 'decide-recipients' });
    expect(deps.smtp.sent).toEqual([]);
    expect(deps.emails.get(TEAM, email.id)?.status).toBe('failed');
    const failed = deps.emails.timeline(TEAM, email.id).at(-1)!;
    expect(failed.type).toBe('email.failed');
    expect((failed.data.failed as { reason: string }).reason).toContain('out@x.test: the contact opted out');
    expect(recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id))).toHaveLength(2);
  });

  it('a suppressed address gets no mail, topic or not, and is reported as email.suppressed', async () => {
    const email = emailToDeliver({ content: { to: ['ok@x.test'], bcc: ['Gone@X.test'] } });
    const deps = setup(email);
    deps.recipients.suppress('gone@x.test');
    await deliverEmail(job(email), deps);
    expect(deps.smtp.sent.map((m) => m.envelope.to)).toEqual([['ok@x.test']]);
    // no topic, no broadcast: one message, no unsubscribe header
    expect(deps.smtp.sent[0]!.raw.toString()).not.toContain('List-Unsubscribe');
    const timeline = deps.emails.timeline(TEAM, email.id);
    expect(timeline.map((e) => e.type)).toEqual(['email.suppressed', 'email.sent', 'email.delivered']);
    expect(timeline[0]!.data.suppressed).toEqual({
      message: 'the address is on the suppression list',
      type: 'OnAccountSuppressionList',
      email: 'Gone@X.test',
    });
    expect(deps.emails.get(TEAM, email.id)?.status).toBe('delivered');
  });

  it('a transactional email (no topic) still reaches an unsubscribed or opted-out contact', async () => {
    const email = topicEmail(null);
    const deps = setup(email);
    await deliverEmail(job(email), deps);
    expect(deps.smtp.sent).toHaveLength(1);
    expect(deps.smtp.sent[0]!.envelope.to).toHaveLength(5);
  });

  it('a hard bounce of the address suppresses it; one of the message does not', async () => {
    const bad = emailToDeliver({
      id: '0190a6b2-7c3d-7000-8000-0000000000b1',
      content: { to: ['nobody@x.test'] },
    });
    const deps = setup(bad);
    deps.smtp.answer({
      kind: 'hard_fail',
      code: 550,
      enhancedCode: '5.1.1',
      detail: '550 5.1.1 no such user',
    });
    await deliverEmail(job(bad), deps);
    expect([...deps.recipients.suppressions.values()]).toMatchObject([
      { email: 'nobody@x.test', origin: 'bounce', source_id: bad.id },
    ]);

    const big = emailToDeliver({
      id: '0190a6b2-7c3d-7000-8000-0000000000b2',
      content: { to: ['fine@x.test'] },
    });
    const other = setup(big);
    other.smtp.answer({ kind: 'hard_fail', code: 552, enhancedCode: '5.3.4', detail: '552 5.3.4 too big' });
    expect(await deliverEmail(job(big), other)).toMatchObject({ kind: 'bounced', bounce: 'Permanent' });
    expect(other.recipients.suppressions.size).toBe(0);
  });

  it('one recipient refused permanently among several: only that one is suppressed', async () => {
    const email = emailToDeliver({ content: { to: ['a@x.test', 'b@x.test'] } });
    const deps = setup(email);
    deps.smtp.refuse({
      address: 'b@x.test',
      code: 550,
      enhancedCode: '5.1.1',
      permanent: true,
      detail: 'no',
    });
    await deliverEmail(job(email), deps);
    expect([...deps.recipients.suppressions.keys()]).toEqual(['b@x.test']);
  });

  it('a per-recipient message refused while the others went out: delivered, the refused one listed', async () => {
    const email = emailToDeliver({ content: { to: ['a@x.test', 'b@x.test'], topic_id: 'news' } });
    const deps = setup(email);
    deps.smtp.refuse({
      address: 'b@x.test',
      code: 550,
      enhancedCode: '5.1.1',
      permanent: true,
      detail: '550 no',
    });
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id))).toMatchObject([
      { email: 'a@x.test', status: 'delivered' },
      { email: 'b@x.test', status: 'bounced', bounce: { type: 'Permanent' } },
    ]);
  });
});

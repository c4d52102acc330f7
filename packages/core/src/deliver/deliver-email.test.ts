import { describe, expect, it } from 'vitest';
import { emailToDeliver, memoryDeliverDeps, type MemoryDeliverDeps } from '@petrel/testing';
import { parseTemplate } from '../templates/parse-template.js';
import { DELIVERY_STAGES, deliverEmail } from './deliver-email.js';
import { recordedRecipientOutcomes } from './recipient-outcomes.js';
import type { SendResult } from './ports.js';
import type { EmailToDeliver } from '../emails/record.js';
import type { DeliverStageName } from './outcome.js';
import type { DeliverStage } from './stage.js';
import { decideRecipients as decideRecipientsStage } from './stages/decide-recipients.js';

const TEAM = 'team-1';
const job = (email: EmailToDeliver, attemptsMade = 0) => ({ teamId: TEAM, emailId: email.id, attemptsMade });
const soft: SendResult = {
  kind: 'soft_fail',
  code: 451,
  detail: '451 4.7.1 try again in 5 minutes',
  retryAfterMs: 300_000,
};
const hard: SendResult = { kind: 'hard_fail', code: 550, detail: '550 5.1.1 no such user' };

function setup(email: EmailToDeliver = emailToDeliver(), retries = 3) {
  const deps = memoryDeliverDeps({ retries, smtpLatencyMs: 120 });
  deps.emails.put(email, [{ content: 'aGk=', filename: 'hi.txt' }]);
  return { deps, email };
}
const types = (deps: MemoryDeliverDeps, email: EmailToDeliver) =>
  deps.emails.timeline(TEAM, email.id).map((e) => e.type);

describe('deliverEmail', () => {
  it('reads as its stage list', () => {
    expect(DELIVERY_STAGES.map((s) => s.name)).toEqual([
      'resolve-content',
      'decide-recipients',
      'render',
      'track',
      'decorate',
      'build-mime',
      'simulate',
      'sign',
      'send',
      'record-and-publish',
      'soft-bounces',
    ]);
  });

  it('every stage runs after the stages that produce what it needs', () => {
    const produced: Record<string, string[]> = {
      'resolve-content': ['content', 'template'],
      'decide-recipients': ['recipients', 'dropped'],
      render: ['content'],
      track: ['recipientHtml'],
      decorate: ['decoration'],
      'build-mime': ['messages'],
      simulate: ['simulated'],
      send: ['result'],
      'record-and-publish': ['outcome'],
    };
    const known = new Set<string>();
    for (const stage of DELIVERY_STAGES) {
      for (const need of stage.needs) expect(known, `${stage.name} needs ${need}`).toContain(need);
      for (const p of produced[stage.name] ?? []) known.add(p);
    }
  });

  it('250: records sent + delivered with the attempt count, publishes both, reports the latency', async () => {
    const { deps, email } = setup();
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(types(deps, email)).toEqual(['email.sent', 'email.delivered']);
    expect(deps.emails.published.map((e) => e.type)).toEqual(['email.sent', 'email.delivered']);
    expect(deps.emails.get(TEAM, email.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    const delivered = deps.emails.timeline(TEAM, email.id)[1]!;
    expect(delivered).toMatchObject({
      id: 'evt-2',
      teamId: TEAM,
      created_at: '2026-01-02T03:05:00.120Z',
      data: {
        email_id: email.id,
        message_id: email.messageId,
        from: email.content.from,
        to: email.content.to,
        subject: 'Hello',
        smtp_response: '250 2.0.0 OK queued',
      },
    });
    expect(deps.observer.smtp).toEqual([{ kind: 'sent', seconds: 0.12 }]);
    expect(deps.observer.outcomes).toEqual([{ outcome: { kind: 'delivered' }, emailId: email.id }]);
  });

  it('builds with the Message-ID fixed at acceptance, the Date of the attempt and the attachments', async () => {
    const { deps, email } = setup(emailToDeliver({ messageId: '<x@mail.acme.test>' }));
    await deliverEmail(job(email), deps);
    const built = deps.mime.built[0]!;
    expect(built).toMatchObject({ emailId: email.id, messageIdDomain: 'mail.acme.test' });
    expect(built.date.toISOString()).toBe('2026-01-02T03:05:00.000Z');
    expect(built.content.attachments).toEqual([{ content: 'aGk=', filename: 'hi.txt' }]);
    expect(deps.smtp.sent[0]!.messageId).toBe(`<${email.id}@mail.acme.test>`);
  });

  it('the envelope is to + cc + bcc, bare, each address once whatever its case', async () => {
    const { deps, email } = setup(
      emailToDeliver({
        content: {
          to: ['Ada <ada@example.test>', 'bob@example.test'],
          cc: ['ADA@Example.test', 'Cy <cy@example.test>'],
          bcc: ['"Bob, B." <Bob@example.test>', 'dee@example.test'],
        },
      }),
    );
    await deliverEmail(job(email), deps);
    expect(deps.mime.built[0]!.recipients).toEqual([
      'ada@example.test',
      'bob@example.test',
      'cy@example.test',
      'dee@example.test',
    ]);
  });

  it('4xx the first time: delivery_delayed once, then only the attempt count', async () => {
    const { deps, email } = setup();
    deps.smtp.answer(soft);
    const first = await deliverEmail(job(email, 0), deps);
    expect(first).toEqual({ kind: 'delayed', detail: soft.detail, retryAfterMs: 300_000 });
    expect(types(deps, email)).toEqual(['email.delivery_delayed']);
    expect(deps.emails.timeline(TEAM, email.id)[0]!.data.delay).toEqual({ message: soft.detail, code: 451 });
    expect(deps.emails.get(TEAM, email.id)).toMatchObject({ status: 'delivery_delayed', attempts: 1 });

    expect((await deliverEmail(job(email, 1), deps)).kind).toBe('delayed');
    expect(types(deps, email)).toEqual(['email.delivery_delayed']);
    expect(deps.emails.get(TEAM, email.id)!.attempts).toBe(2);
  });

  it('4xx with the retries spent: bounced Temporary, RetriesExhausted', async () => {
    const { deps, email } = setup(emailToDeliver({ status: 'delivery_delayed', attempts: 3 }));
    deps.smtp.answer(soft);
    expect(await deliverEmail(job(email, 3), deps)).toEqual({
      kind: 'bounced',
      bounce: 'Temporary',
      code: 451,
      detail: soft.detail,
    });
    const [bounced] = deps.emails.timeline(TEAM, email.id);
    expect(bounced?.data.bounce).toMatchObject({ type: 'Temporary', subType: 'RetriesExhausted' });
    expect(deps.emails.get(TEAM, email.id)).toMatchObject({ status: 'bounced', attempts: 4 });
  });

  it('5xx: bounced Permanent on the first attempt', async () => {
    const { deps, email } = setup();
    deps.smtp.answer(hard);
    expect(await deliverEmail(job(email), deps)).toMatchObject({
      kind: 'bounced',
      bounce: 'Permanent',
      code: 550,
    });
    expect(types(deps, email)).toEqual(['email.bounced']);
    expect(deps.observer.smtp).toEqual([{ kind: 'hard_fail', seconds: 0.12 }]);
  });

  describe('some recipients refused while the others get the message', () => {
    const needsUtf8 = {
      address: 'josé@example.test',
      code: 553,
      enhancedCode: '5.6.7',
      permanent: true,
      detail: 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer',
    };
    const unknownUser = {
      address: 'gone@example.test',
      code: 550,
      permanent: true,
      detail: '550 5.1.1 <gone@example.test>: Recipient address rejected: User unknown',
    };
    const threeRecipients = () =>
      setup(
        emailToDeliver({
          content: { to: ['José <josé@example.test>', 'ada@example.test'], bcc: ['gone@example.test'] },
        }),
      );

    it('delivered, and email.delivered lists every recipient with the refusals and their reason', async () => {
      const { deps, email } = threeRecipients();
      deps.smtp.refuse(needsUtf8, unknownUser);
      expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
      expect(types(deps, email)).toEqual(['email.sent', 'email.delivered']);
      expect(deps.emails.get(TEAM, email.id)).toMatchObject({ status: 'delivered', attempts: 1 });
      const delivered = deps.emails.timeline(TEAM, email.id)[1]!;
      expect(delivered.data).toMatchObject({
        email_id: email.id,
        smtp_response: '250 2.0.0 OK queued',
        // envelope order (to, then bcc); the bounce's whole shape is decideAttempt's table
        recipients: [
          { email: 'josé@example.test', status: 'bounced', bounce: { message: needsUtf8.detail } },
          { email: 'ada@example.test', status: 'delivered' },
          { email: 'gone@example.test', status: 'bounced', bounce: { message: unknownUser.detail } },
        ],
      });
      // what the webhook dispatcher gets is the same event
      expect(deps.emails.published.at(-1)).toEqual(delivered);
      expect(recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id))).toEqual(
        delivered.data.recipients,
      );
    });

    it("a refusal of a recipient not on this attempt's envelope changes nothing", async () => {
      const { deps, email } = setup();
      deps.smtp.refuse(needsUtf8);
      await deliverEmail(job(email), deps);
      expect(deps.emails.timeline(TEAM, email.id)[1]!.data).not.toHaveProperty('recipients');
      expect(recordedRecipientOutcomes(deps.emails.timeline(TEAM, email.id))).toBeUndefined();
    });

    it('every recipient refused: a bounce with the reason, no per-recipient list', async () => {
      const { deps, email } = setup(emailToDeliver({ content: { to: ['josé@example.test'] } }));
      deps.smtp.refuse(needsUtf8);
      expect(await deliverEmail(job(email), deps)).toMatchObject({ kind: 'bounced', bounce: 'Permanent' });
      const [bounced] = deps.emails.timeline(TEAM, email.id);
      expect(bounced).toMatchObject({
        type: 'email.bounced',
        data: { bounce: { type: 'Permanent', message: needsUtf8.detail } },
      });
      expect(bounced!.data).not.toHaveProperty('recipients');
    });
  });

  it('writes the SMTP outcome through the outcomes port, not the plain store', async () => {
    const { deps, email } = setup();
    const writes: string[] = [];
    const outcomes = {
      recordEvents: (...a: Parameters<typeof deps.emails.recordEvents>) => {
        writes.push('recordEvents');
        return deps.emails.recordEvents(...a);
      },
      setFields: (...a: Parameters<typeof deps.emails.setFields>) => {
        writes.push('setFields');
        return deps.emails.setFields(...a);
      },
    };
    await deliverEmail(job(email), { ...deps, outcomes });
    expect(writes).toEqual(['recordEvents']);
  });

  it.each([
    ['missing', undefined],
    ['canceled', 'canceled'],
    ['delivered', 'delivered'],
    ['bounced', 'bounced'],
    ['sent', 'sent'],
  ] as const)('%s: sends nothing and records nothing', async (_name, status) => {
    const deps = memoryDeliverDeps();
    const email = emailToDeliver(status ? { status } : {});
    if (status) deps.emails.put(email);
    const outcome = await deliverEmail(job(email), deps);
    expect(outcome).toEqual(status ? { kind: 'skipped', status } : { kind: 'missing' });
    expect(deps.smtp.sent).toHaveLength(0);
    expect(deps.emails.published).toHaveLength(0);
    expect(deps.observer.outcomes).toEqual([{ outcome, emailId: status ? email.id : null }]);
  });

  it.each(['scheduled', 'queued', 'delivery_delayed'] as const)('%s: sendable', async (status) => {
    const { deps, email } = setup(emailToDeliver({ status }));
    expect((await deliverEmail(job(email), deps)).kind).toBe('delivered');
  });

  describe('from a template', () => {
    const templated = (variables: Record<string, string | number>) =>
      emailToDeliver({
        template: { id: 'tpl-1', versionId: 'v-1' },
        content: { html: undefined, text: 'stale', template: { id: 'welcome', variables } },
      });
    const version = (text?: string) => ({
      version: { variables: [{ key: 'PLAN', type: 'string' as const, fallback_value: 'free' }] },
      html: parseTemplate('<p>Hi {{{NAME}}}, plan {{{PLAN}}}</p>'),
      text: text === undefined ? undefined : parseTemplate(text),
    });

    it('renders the pinned version with the values and declared fallbacks', async () => {
      const { deps, email } = setup(templated({ NAME: 'Ada & co' }));
      deps.templates.put(TEAM, 'tpl-1', 'v-1', version('Hi {{{NAME}}}'));
      expect((await deliverEmail(job(email), deps)).kind).toBe('delivered');
      const { content } = deps.mime.built[0]!;
      expect(content.html).toBe('<p>Hi Ada &amp; co, plan free</p>');
      expect(content.text).toBe('Hi Ada & co');
    });

    it('a version without text leaves the text part to the mailer', async () => {
      const { deps, email } = setup(templated({ NAME: 'Ada' }));
      deps.templates.put(TEAM, 'tpl-1', 'v-1', version());
      await deliverEmail(job(email), deps);
      expect(deps.mime.built[0]!.content).not.toHaveProperty('text');
    });

    it('fails the email when the version is gone', async () => {
      const { deps, email } = setup(templated({ NAME: 'Ada' }));
      expect(await deliverEmail(job(email), deps)).toEqual({
        kind: 'failed',
        stage: 'resolve-content',
        reason: 'template tpl-1 version v-1 no longer exists',
      });
      const [failed] = deps.emails.timeline(TEAM, email.id);
      expect(failed).toMatchObject({
        type: 'email.failed',
        data: { template_id: 'tpl-1', failed: { reason: 'template tpl-1 version v-1 no longer exists' } },
      });
      expect(deps.emails.get(TEAM, email.id)).toMatchObject({ status: 'failed', attempts: 0 });
      expect(deps.smtp.sent).toHaveLength(0);
    });

    it('fails the email when a variable has no value', async () => {
      const { deps, email } = setup(templated({}));
      deps.templates.put(TEAM, 'tpl-1', 'v-1', version());
      expect(await deliverEmail(job(email), deps)).toEqual({
        kind: 'failed',
        stage: 'render',
        reason: 'template variables without value: NAME',
      });
      expect(types(deps, email)).toEqual(['email.failed']);
    });
  });

  it('a message that cannot be built fails at build-mime and is never sent', async () => {
    const { deps, email } = setup();
    deps.mime.refuse('custom header X-A holds a line break');
    expect(await deliverEmail(job(email), deps)).toEqual({
      kind: 'failed',
      stage: 'build-mime',
      reason: 'custom header X-A holds a line break',
    });
    expect(types(deps, email)).toEqual(['email.failed']);
    expect(deps.smtp.sent).toHaveLength(0);
  });

  it('an email with no recipient left fails at decide-recipients', async () => {
    const { deps, email } = setup(emailToDeliver({ content: { to: [] } }));
    expect(await deliverEmail(job(email), deps)).toMatchObject({
      kind: 'failed',
      stage: 'decide-recipients',
    });
    expect(deps.mime.built).toHaveLength(0);
  });

  it('a stage added to the list runs in its place: e.g. one that narrows the envelope', async () => {
    const { deps, email } = setup(
      emailToDeliver({ content: { to: ['ada@example.test', 'bob@example.test'] } }),
    );
    const dropBob: DeliverStage<'recipients'> = {
      name: 'suppress' as DeliverStageName,
      needs: ['recipients'],
      run(ctx) {
        ctx.recipients = ctx.recipients.filter((r) => r !== 'bob@example.test');
      },
    };
    const stages = [...DELIVERY_STAGES];
    stages.splice(stages.indexOf(decideRecipientsStage) + 1, 0, dropBob);
    expect((await deliverEmail(job(email), deps, stages)).kind).toBe('delivered');
    expect(deps.smtp.sent[0]!.envelope.to).toEqual(['ada@example.test']);
  });

  it('refuses a stage list that runs a stage before what it needs is known', async () => {
    const { deps, email } = setup();
    const reordered = DELIVERY_STAGES.filter((s) => s.name !== 'build-mime');
    await expect(deliverEmail(job(email), deps, reordered)).rejects.toThrow(
      'delivery stage simulate runs before messages is known',
    );
  });

  it('a store error propagates (the job attempt fails and is retried)', async () => {
    const { deps, email } = setup();
    deps.emails.getForSend = () => Promise.reject(new Error('Connection is closed.'));
    await expect(deliverEmail(job(email), deps)).rejects.toThrow('Connection is closed.');
  });
});

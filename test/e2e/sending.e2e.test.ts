/**
 * The sending pipeline end to end (POST /emails/batch and POST /emails → one BullMQ job
 * per email → SMTP), driven by the official `resend` SDK against a real SMTP sink.
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { email, fileStack, lastEvent, sendPlain } from './helpers.js';

const stack = fileStack({
  plan: {
    // 4xx twice, then accepted.
    'soft.test': [
      { at: 'rcpt', code: 451, message: '4.7.1 Greylisted, try again in 1 seconds' },
      { at: 'rcpt', code: 451 },
      'accept',
    ],
    // Permanent rejection.
    'hard.test': [{ at: 'rcpt', code: 550, message: '5.1.1 No such user' }],
    // Never accepts: retries run out.
    'never.test': [{ at: 'rcpt', code: 450, message: '4.2.1 Mailbox busy' }],
  },
});

const toOf = (i: number) => `bulk${i}@example.test`;

/**
 * An empty sink for the next test's count: the previous test's emails are delivered first (no
 * pending send job), so none of them can land after the clear and be counted as this test's.
 */
async function freshSink(): Promise<void> {
  await stack.drained();
  stack.sink.clear();
}

describe('POST /emails/batch', () => {
  it('delivers a 100-email batch exactly once each, ids mapping to their emails in order', async () => {
    await freshSink();
    const emails = Array.from({ length: 100 }, (_, i) => ({
      from: 'Acme <news@acme.test>',
      to: toOf(i),
      subject: `Batch item ${i}`,
      html: `<p>Item <b>${i}</b></p>`,
      tags: [{ name: 'index', value: String(i) }],
    }));
    const { data, error } = await stack.resend.batch.send(emails);
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(100);
    const ids = data!.data.map((d) => d.id);
    expect(new Set(ids).size).toBe(100);

    const received = await stack.sink.waitFor(100, 30_000);
    await stack.settled(ids); // every send job over: no duplicate can still come
    expect(stack.sink.messages).toHaveLength(100);
    for (const [i, id] of ids.entries()) {
      const copies = stack.sink.byMessageId(`<${id}@acme.test>`);
      expect(copies).toHaveLength(1);
      expect(copies[0]!.envelope.to).toEqual([toOf(i)]);
      expect(copies[0]!.parsed.subject).toBe(`Batch item ${i}`);
      expect(copies[0]!.parsed.text).toContain(`Item ${i}`); // generated from html
    }
    expect(received.length).toBe(100);

    const one = await stack.resend.emails.get(ids[42]!);
    expect(one.data).toMatchObject({
      object: 'email',
      id: ids[42],
      to: [toOf(42)],
      subject: 'Batch item 42',
    });
    await waitUntil(async () => (await stack.resend.emails.get(ids[42]!)).data?.last_event === 'delivered', {
      timeoutMs: 10_000,
      message: 'email 42 never reached delivered',
    });
    // its timeline (GET /emails/:id/events, a Petrel extension), oldest first
    const timeline = await stack.http(`/emails/${ids[42]}/events`);
    expect(timeline.status).toBe(200);
    const events = (timeline.body as { data: { type: string; created_at: string }[] }).data;
    expect(events.map((e) => e.type)).toEqual(['email.queued', 'email.sent', 'email.delivered']);
    expect([...events].sort((a, b) => a.created_at.localeCompare(b.created_at))).toEqual(events);
    expect(events[0]).not.toHaveProperty('teamId');
  });

  it('GET /emails/:id shows the custom headers given at send time', async () => {
    const sent = await stack.resend.emails.send({
      ...email(7),
      headers: { 'X-Entity-Ref': 'ref-7' },
    } as never);
    expect(sent.error).toBeNull();
    const got = await stack.http(`/emails/${sent.data!.id}`);
    expect(got.body).toMatchObject({ id: sent.data!.id, headers: { 'X-Entity-Ref': 'ref-7' } });
  });

  it('strict mode: one invalid email rejects the batch and nothing is sent', async () => {
    await freshSink();
    const { data, error } = await stack.resend.batch.send([
      email(1) as any,
      email(2, { tags: [{ name: 'bad tag!', value: 'x' }] }) as any,
    ]);
    expect(data).toBeNull();
    expect(error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(error!.message).toContain('emails[1].tags[0].name');
    await stack.drained(); // had the batch queued anything, it would be in the sink now
    expect(stack.sink.messages).toHaveLength(0);
  });

  it('permissive mode: valid emails accepted, invalid ones reported by index', async () => {
    await freshSink();
    const { data, error } = await stack.resend.batch.send(
      [email(1) as any, email(2, { to: 'not-an-address' }) as any, email(3) as any],
      { batchValidation: 'permissive' },
    );
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    const errors = (data as any).errors as { index: number; message: string }[];
    expect(errors).toHaveLength(1);
    expect(errors[0]!.index).toBe(1);
    expect(errors[0]!.message).toContain('emails[1].to');
    await stack.sink.waitFor(2);
  });

  it('refuses attachments and scheduled_at in a batch', async () => {
    const att = await stack.http('/emails/batch', {
      method: 'POST',
      body: JSON.stringify([email(0, { attachments: [{ filename: 'a.txt', content: 'aGk=' }] })]),
    });
    expect(att.status).toBe(422);
    expect(att.body.message).toContain('emails[0].attachments');
    const sched = await stack.http('/emails/batch', {
      method: 'POST',
      body: JSON.stringify([email(0, { scheduled_at: 'in 1 hour' })]),
    });
    expect(sched.status).toBe(422);
    expect(sched.body.message).toContain('emails[0].scheduled_at');
  });
});

describe('validation rules: a failing case and an at-the-limit passing case each', () => {
  const tag = (n: number) => 'a'.repeat(n);
  const recipients = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@example.test`);
  const cases: {
    rule: string;
    pass: Record<string, unknown>;
    fail: Record<string, unknown>;
    field: string;
  }[] = [
    { rule: 'to: at most 50', pass: { to: recipients(50) }, fail: { to: recipients(51) }, field: 'to' },
    {
      rule: 'tag name ≤ 256',
      pass: { tags: [{ name: tag(256), value: 'v' }] },
      fail: { tags: [{ name: tag(257), value: 'v' }] },
      field: 'tags[0].name',
    },
    {
      rule: 'tag value ≤ 256',
      pass: { tags: [{ name: 'n', value: tag(256) }] },
      fail: { tags: [{ name: 'n', value: tag(257) }] },
      field: 'tags[0].value',
    },
    {
      rule: 'tag charset',
      pass: { tags: [{ name: 'A-z_09', value: 'ok-_' }] },
      fail: { tags: [{ name: 'n', value: 'a b' }] },
      field: 'tags[0].value',
    },
    {
      rule: 'from display form',
      pass: {
        from: 'Doe, John <"quoted"@acme.test>'
          .replace('"quoted"', 'john')
          .replace('Doe, John', '"Doe, John"'),
      },
      fail: { from: 'a@acme.test, b@evil.test' },
      field: 'from',
    },
    { rule: 'from required', pass: {}, fail: { from: undefined }, field: 'from' },
    { rule: 'to required', pass: {}, fail: { to: undefined }, field: 'to' },
    { rule: 'subject required', pass: {}, fail: { subject: undefined }, field: 'subject' },
    {
      rule: 'no CR/LF in subject',
      pass: { subject: 'x'.repeat(998) },
      fail: { subject: 'hi\r\nBcc: x@evil.test' },
      field: 'subject',
    },
    {
      rule: 'no CR/LF in header values',
      pass: { headers: { 'X-Entity-Ref': 'abc' } },
      fail: { headers: { 'X-Entity-Ref': 'a\nb' } },
      field: 'headers',
    },
    {
      rule: 'cc/bcc/reply_to addresses',
      pass: { cc: 'c@example.test', bcc: ['d@example.test'], reply_to: 'e@example.test' },
      fail: { reply_to: ['ok@example.test', '<a@evil.test> x'] },
      field: 'reply_to',
    },
    {
      rule: 'template with html',
      pass: {},
      fail: { template: { id: 'welcome' } },
      field: 'template',
    },
    {
      rule: 'variable key ≤ 50',
      pass: {},
      fail: { html: undefined, template: { id: 'welcome', variables: { [tag(51)]: 'x' } } },
      field: 'template.variables',
    },
    {
      rule: 'variable reserved key',
      pass: {},
      fail: { html: undefined, template: { id: 'welcome', variables: { FIRST_NAME: 'x' } } },
      field: 'template.variables',
    },
    {
      rule: 'variable string ≤ 2000',
      pass: {},
      fail: { html: undefined, template: { id: 'welcome', variables: { NAME: 'x'.repeat(2001) } } },
      field: 'template.variables',
    },
    {
      rule: 'variable number ≤ 2^53-1',
      pass: {},
      fail: { html: undefined, template: { id: 'welcome', variables: { N: 2 ** 53 } } },
      field: 'template.variables',
    },
  ];

  for (const c of cases) {
    it(`${c.rule}`, async () => {
      const pass = await stack.http('/emails/batch', {
        method: 'POST',
        body: JSON.stringify([email(0, c.pass)]),
      });
      expect(pass.status, JSON.stringify(pass.body)).toBe(200);
      const fail = await stack.http('/emails/batch', {
        method: 'POST',
        body: JSON.stringify([email(0), email(1, c.fail)]),
      });
      expect(fail.status).toBe(422);
      expect(fail.body).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(fail.body.message).toContain(`emails[1].${c.field}`);
    });
  }

  it('100 emails pass, 101 fail', async () => {
    const ok = await stack.http('/emails/batch', {
      method: 'POST',
      body: JSON.stringify(Array.from({ length: 100 }, (_, i) => email(i))),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toHaveLength(100);
    const tooMany = await stack.http('/emails/batch', {
      method: 'POST',
      body: JSON.stringify(Array.from({ length: 101 }, (_, i) => email(i))),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toMatch(/100/);
    const empty = await stack.http('/emails/batch', { method: 'POST', body: '[]' });
    expect(empty.status).toBe(422);
    const notArray = await stack.http('/emails/batch', { method: 'POST', body: JSON.stringify(email(0)) });
    expect(notArray.status).toBe(422);
  });
});

describe('idempotency', () => {
  it('replays the first response for the same key and body and sends once', async () => {
    await freshSink();
    const key = `order-${Date.now()}`;
    const batch = [email(1, { to: 'idem1@example.test' }), email(2, { to: 'idem2@example.test' })] as any[];
    const first = await stack.resend.batch.send(batch, { idempotencyKey: key });
    expect(first.error).toBeNull();
    for (let i = 0; i < 5; i++) {
      const again = await stack.resend.batch.send(batch, { idempotencyKey: key });
      expect(again.data).toEqual(first.data);
    }
    const mine = () => stack.sink.messages.filter((m) => /^idem[12]@/.test(m.envelope.to[0] ?? ''));
    await waitUntil(() => mine().length >= 2, { timeoutMs: 10_000 });
    // a replay that queued anything (under any id) would have sent it by now
    await stack.drained();
    expect(mine()).toHaveLength(2);
  });

  it('same key with another body → 409 invalid_idempotent_request; a bad key → 400', async () => {
    const key = `k-${Date.now()}`;
    const a = await stack.resend.emails.send(email(1) as any, { idempotencyKey: key });
    expect(a.error).toBeNull();
    const b = await stack.resend.emails.send(email(1, { subject: 'changed' }) as any, {
      idempotencyKey: key,
    });
    expect(b.error).toMatchObject({ statusCode: 409, name: 'invalid_idempotent_request' });
    const long = await stack.resend.emails.send(email(1) as any, { idempotencyKey: 'k'.repeat(257) });
    expect(long.error).toMatchObject({ statusCode: 400, name: 'invalid_idempotency_key' });
    const max = await stack.resend.emails.send(email(1) as any, { idempotencyKey: 'k'.repeat(256) });
    expect(max.error).toBeNull();
  });

  it('12 parallel requests with one key → exactly one send', async () => {
    await freshSink();
    const key = `parallel-${Date.now()}`;
    const body = email(7, { to: 'parallel@example.test' }) as any;
    const results = await Promise.all(
      Array.from({ length: 12 }, () => stack.resend.emails.send(body, { idempotencyKey: key })),
    );
    const ok = results.filter((r) => r.data);
    const conflicts = results.filter((r) => r.error);
    for (const c of conflicts)
      expect(c.error).toMatchObject({ statusCode: 409, name: 'concurrent_idempotent_requests' });
    expect(new Set(ok.map((r) => r.data!.id)).size).toBe(1);
    await waitUntil(() => stack.sink.messages.some((m) => m.envelope.to.includes('parallel@example.test')), {
      timeoutMs: 10_000,
    });
    await stack.drained(); // every email the 12 requests queued, under any id, is sent by now
    expect(stack.sink.messages.filter((m) => m.envelope.to.includes('parallel@example.test'))).toHaveLength(
      1,
    );
  });

  it('a validation failure frees the key for a corrected request', async () => {
    const key = `fixme-${Date.now()}`;
    const bad = await stack.resend.emails.send(email(1, { to: 'nope' }) as any, { idempotencyKey: key });
    expect(bad.error).toMatchObject({ statusCode: 422 });
    const good = await stack.resend.emails.send(email(1) as any, { idempotencyKey: key });
    expect(good.error).toBeNull();
  });
});

describe('SMTP outcomes', () => {
  it('4xx then 250: delivered once after retries, with one delivery_delayed on the timeline', async () => {
    const id = await sendPlain(stack, 'a@acme.test', 'user@soft.test', 'retry me');
    await waitUntil(() => stack.sink.byMessageId(`<${id}@acme.test>`).length > 0, {
      timeoutMs: 20_000,
    });
    expect(stack.sink.attemptsFor('user@soft.test')).toBe(3);
    await lastEvent(stack, id, 'delivered', 10_000);
    await stack.settled([id]);
    expect(stack.sink.byMessageId(`<${id}@acme.test>`)).toHaveLength(1);
    // the timeline as GET /emails/:id/events reads it (the first event is kept in the record)
    const timeline = await stack.http(`/emails/${id}/events`);
    const types = (timeline.body as { data: { type: string }[] }).data.map((e) => e.type);
    expect(types).toEqual(['email.queued', 'email.delivery_delayed', 'email.sent', 'email.delivered']);
  });

  it('5xx: bounced without a retry', async () => {
    const id = await sendPlain(stack, 'a@acme.test', 'user@hard.test', 'bounce');
    await lastEvent(stack, id, 'bounced', 10_000);
    await stack.settled([id]); // the job failed for good: no attempt can follow
    expect(stack.sink.attemptsFor('user@hard.test')).toBe(1);
  });

  it('retries exhausted: bounced (transient) after the ladder', async () => {
    await lastEvent(stack, await sendPlain(stack, 'a@acme.test', 'user@never.test', 'never'), 'bounced');
    // RETRY_SCHEDULE_S=1,1,1 → 1 attempt + 3 retries.
    expect(stack.sink.attemptsFor('user@never.test')).toBe(4);
  });
});

describe('single emails: scheduling', () => {
  it('scheduled then cancelled is never sent', async () => {
    await freshSink();
    const { data, error } = await stack.resend.emails.send({
      from: 'a@acme.test',
      to: 'later@example.test',
      subject: 'later',
      html: '<p>x</p>',
      scheduledAt: new Date(Date.now() + 3_000).toISOString(),
    });
    expect(error).toBeNull();
    expect((await stack.resend.emails.get(data!.id)).data?.last_event).toBe('scheduled');
    const cancel = await stack.resend.emails.cancel(data!.id);
    expect(cancel.data).toMatchObject({ object: 'email', id: data!.id });
    expect((await stack.resend.emails.get(data!.id)).data?.last_event).toBe('canceled');
    // no job left that could send it, ever (a job the cancel had left behind would have run by now)
    await stack.settled([data!.id]);
    expect(stack.sink.messages.filter((m) => m.envelope.to.includes('later@example.test'))).toHaveLength(0);
    const again = await stack.resend.emails.cancel(data!.id);
    expect(again.error).toMatchObject({ statusCode: 422 });
  });

  it('natural-language scheduling and reschedule via PATCH', async () => {
    const { data, error } = await stack.resend.emails.send({
      ...(email(1) as any),
      scheduledAt: 'in 1 hour',
    });
    expect(error).toBeNull();
    const got = await stack.resend.emails.get(data!.id);
    const at = Date.parse(got.data!.scheduled_at!);
    expect(Math.abs(at - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    const upd = await stack.resend.emails.update({
      id: data!.id,
      scheduledAt: new Date(Date.now() + 1_500).toISOString(),
    });
    expect(upd.error).toBeNull();
    await waitUntil(async () => (await stack.resend.emails.get(data!.id)).data?.last_event === 'delivered', {
      timeoutMs: 15_000,
    });
    const far = await stack.resend.emails.send({ ...(email(1) as any), scheduledAt: 'in 31 days' });
    expect(far.error).toMatchObject({ statusCode: 422 });
  });

  it('sends attachments and inline images with a single email', async () => {
    await freshSink();
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const { error, data } = await stack.resend.emails.send({
      from: 'a@acme.test',
      to: 'att@example.test',
      subject: 'with files',
      html: '<p>logo <img src="cid:logo1"></p>',
      attachments: [
        { filename: 'report.txt', content: Buffer.from('hello report').toString('base64') },
        { filename: 'logo.png', content: png, contentId: 'logo1' } as any,
      ],
    });
    expect(error).toBeNull();
    const msg = await waitUntil(() => stack.sink.byMessageId(`<${data!.id}@acme.test>`)[0], {
      timeoutMs: 10_000,
    });
    expect(msg!.parsed.messageId).toBe(`<${data!.id}@acme.test>`);
    const files = msg!.parsed.attachments.map((a) => a.filename);
    expect(files).toContain('report.txt');
    expect(files).toContain('logo.png');
  });
});

describe('listing', () => {
  it('lists with cursor pagination and validates limit', async () => {
    const first = await stack.resend.emails.list({ limit: 2 });
    expect(first.error).toBeNull();
    expect(first.data!.data).toHaveLength(2);
    expect(first.data!.has_more).toBe(true);
    const next = await stack.resend.emails.list({ limit: 2, after: first.data!.data[1]!.id });
    expect(next.data!.data[0]!.id).not.toBe(first.data!.data[0]!.id);
    const bad = await stack.http('/emails?limit=101');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('limit');
  });
});

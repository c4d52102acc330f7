/**
 * acceptEmails through its real stages, over the in-memory ports of packages/testing: what is
 * committed (records + jobs + idempotency completion together), what is refused and with which
 * wire error, and when a claim is released.
 */
import { describe, expect, it } from 'vitest';
import type { EmailContent } from '@petrel/contracts';
import { emailContent, memoryAcceptPorts, type MemoryAcceptPorts } from '@petrel/testing';
import { acceptEmails, messageIdFor, type AcceptRequest } from './accept-emails.js';

const now = new Date('2026-11-21T10:00:00.000Z');
const b64 = (s: string) => Buffer.from(s).toString('base64');

const wire = (body: unknown, over: Partial<AcceptRequest> = {}): AcceptRequest => ({
  teamId: 'team',
  endpoint: 'single',
  body,
  mode: 'strict',
  idempotencyKey: undefined,
  clock: { now: () => now.getTime() },
  ...over,
});
const batch = (body: unknown[], mode: 'strict' | 'permissive', idempotencyKey?: string): AcceptRequest =>
  wire(body, { endpoint: 'batch', mode, idempotencyKey });

const mail = (i: number, over: Record<string, unknown> = {}) => ({
  from: 'Acme <hello@acme.test>',
  to: [`user${i}@example.test`],
  subject: `Hello ${i}`,
  html: `<p>${i}</p>`,
  ...over,
});

async function withTemplate(): Promise<{
  ports: MemoryAcceptPorts;
  template: { id: string; versionId: string };
}> {
  const ports = memoryAcceptPorts();
  const template = await ports.templates.addPublished('team', {
    alias: 'welcome',
    from: 'Acme <hello@acme.test>',
    subject: 'Hi {{{NAME}}}',
    html: '<p>Hi {{{NAME}}}</p>',
    variables: [{ key: 'NAME', type: 'string' }],
  });
  return { ports, template };
}

describe('acceptEmails: stages between validation and commit', () => {
  it('commits a template send with a remote attachment as one record and one job', async () => {
    const { ports, template } = await withTemplate();
    ports.attachments.serve('https://files.test/r.pdf', 'PDF', {
      contentType: 'application/pdf',
      filename: 'r.pdf',
    });
    const res = await acceptEmails(
      wire({
        to: 'ada@example.test',
        template: { id: 'welcome', variables: { NAME: 'Ada' } },
        attachments: [{ path: 'https://files.test/r.pdf' }],
      }),
      ports,
    );
    const [rec] = ports.store.records;
    expect(res).toEqual({ status: 200, body: JSON.stringify({ id: rec!.id }), replayed: false, accepted: 1 });
    expect(rec).toMatchObject({
      teamId: 'team',
      status: 'queued',
      template,
      messageId: `<${rec!.id}@acme.test>`,
      content: {
        from: 'Acme <hello@acme.test>',
        subject: 'Hi Ada',
        attachments: [{ content: b64('PDF'), filename: 'r.pdf', content_type: 'application/pdf' }],
      },
      event: { type: 'email.queued', teamId: 'team', data: { email_id: rec!.id } },
    });
    expect(ports.store.jobs).toEqual([{ teamId: 'team', emailId: rec!.id, delayMs: 0 }]);
  });

  it('refuses a single send with the stage error and frees its key for a corrected retry', async () => {
    const { ports } = await withTemplate();
    const bad = wire(
      { to: 'a@example.test', template: { id: 'nope', variables: {} } },
      { idempotencyKey: 'k' },
    );
    await expect(acceptEmails(bad, ports)).rejects.toMatchObject({
      statusCode: 422,
      errorName: 'validation_error',
      message: "template.id: template 'nope' not found",
    });
    expect(ports.idempotency.calls.release).toBe(1);
    expect(ports.store.commits).toBe(0);
    const fixed = wire(
      { to: 'a@example.test', template: { id: 'welcome', variables: { NAME: 'A' } } },
      { idempotencyKey: 'k' },
    );
    expect(await acceptEmails(fixed, ports)).toMatchObject({ status: 200, accepted: 1 });
  });

  it('answers a refused remote attachment with invalid_attachment (422)', async () => {
    const ports = memoryAcceptPorts();
    ports.attachments.refuse('http://127.0.0.1/x', '127.0.0.1 is a private or reserved network address');
    const req = wire(mail(1, { attachments: [{ path: 'http://127.0.0.1/x' }] }));
    await expect(acceptEmails(req, ports)).rejects.toMatchObject({
      statusCode: 422,
      errorName: 'invalid_attachment',
      message: 'attachments[0].path: 127.0.0.1 is a private or reserved network address',
    });
  });

  it('strict batch: one email refused by a stage refuses the batch, naming it', async () => {
    const { ports } = await withTemplate();
    await expect(
      acceptEmails(batch([mail(0), mail(1, { topic_id: 'news' })], 'strict'), ports),
    ).rejects.toMatchObject({ message: 'emails[1].topic_id: no topic with this id exists' });
    expect(ports.store.commits).toBe(0);
  });

  it('permissive batch: validation and stage refusals reported in order, the rest committed', async () => {
    const { ports } = await withTemplate();
    const res = await acceptEmails(
      batch(
        [mail(0), { from: 'x' }, { to: 'c@example.test', template: { id: 'gone' } }, mail(3)],
        'permissive',
      ),
      ports,
    );
    const body = JSON.parse(res.body) as {
      data: { id: string }[];
      errors: { index: number; message: string }[];
    };
    expect(body.data).toEqual(ports.store.records.map((r) => ({ id: r.id })));
    expect(ports.store.records.map((r) => r.index)).toEqual([0, 3]);
    expect(body.errors.map((e) => e.index)).toEqual([1, 2]);
    expect(body.errors[1]).toEqual({ index: 2, message: "emails[2].template.id: template 'gone' not found" });
    expect(res.accepted).toBe(2);
  });

  it('records a scheduled email as scheduled, with its delay on the job', async () => {
    const ports = memoryAcceptPorts();
    const at = new Date(now.getTime() + 3_600_000).toISOString();
    await acceptEmails(wire(mail(1, { scheduled_at: at })), ports);
    expect(ports.store.records[0]).toMatchObject({
      status: 'scheduled',
      delayMs: 3_600_000,
      event: { type: 'email.scheduled', data: { scheduled_at: at } },
    });
    expect(ports.store.jobs[0]!.delayMs).toBe(3_600_000);
  });
});

describe('acceptEmails: idempotency around the commit', () => {
  it('completes the key with the response in the commit; the same body replays, another is a 409', async () => {
    const ports = memoryAcceptPorts();
    const first = await acceptEmails(wire(mail(1), { idempotencyKey: 'k' }), ports);
    const again = await acceptEmails(wire(mail(1), { idempotencyKey: 'k' }), ports);
    expect(again).toEqual({ ...first, replayed: true, accepted: 0 });
    expect(ports.store.commits).toBe(1);
    await expect(acceptEmails(wire(mail(2), { idempotencyKey: 'k' }), ports)).rejects.toMatchObject({
      errorName: 'invalid_idempotent_request',
    });
    expect(ports.idempotency.outcomes).toEqual(['proceed', 'replay', 'mismatch']);
  });

  it('keeps the claim when the commit fails (a retry must find the same ids), and answers 409 meanwhile', async () => {
    const ports = memoryAcceptPorts();
    ports.store.failNext = new Error('EXECABORT');
    await expect(acceptEmails(wire(mail(1), { idempotencyKey: 'k' }), ports)).rejects.toThrow('EXECABORT');
    expect(ports.idempotency.calls.release).toBe(0);
    expect(ports.store.records).toEqual([]);
    await expect(acceptEmails(wire(mail(1), { idempotencyKey: 'k' }), ports)).rejects.toMatchObject({
      errorName: 'concurrent_idempotent_requests',
    });
  });

  it('keeps the claim when a stage fails internally (not the client’s fault)', async () => {
    const ports = memoryAcceptPorts();
    ports.attachments.crash('https://files.test/x');
    const req = wire(mail(1, { attachments: [{ path: 'https://files.test/x' }] }), { idempotencyKey: 'k' });
    await expect(acceptEmails(req, ports)).rejects.toThrow('fetcher crashed');
    expect(ports.idempotency.calls.release).toBe(0);
  });

  it('derives ids from team, key, index and the claim time: a recomputation gives the same ids', async () => {
    const run = async () => {
      const ports = memoryAcceptPorts({ clock: { now: () => now.getTime() - 5_000 } });
      await acceptEmails(batch([mail(0), mail(1)], 'strict', 'order-7'), ports);
      return ports.store.records.map((r) => r.id);
    };
    const [a, b] = [await run(), await run()];
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(2);
    const unkeyed = memoryAcceptPorts();
    await acceptEmails(batch([mail(0), mail(1)], 'strict'), unkeyed);
    expect(unkeyed.store.records.map((r) => r.id)).not.toEqual(a);
  });
});

describe('acceptEmails: already-parsed emails (SMTP submission, automation steps)', () => {
  const parsed = (over: Partial<EmailContent> = {}) => emailContent({ subject: '', ...over });
  const fromProducer = (emails: EmailContent[]): AcceptRequest => ({
    teamId: 'team',
    idempotencyKey: undefined,
    clock: { now: () => now.getTime() },
    emails,
  });

  it('skip wire validation but go through the same stages; one email answers like a single send', async () => {
    const { ports, template } = await withTemplate();
    const req = fromProducer([parsed({ template: { id: 'welcome', variables: { NAME: 'Bo' } } })]);
    const res = await acceptEmails(req, ports);
    const [rec] = ports.store.records;
    expect(JSON.parse(res.body)).toEqual({ id: rec!.id });
    expect(rec).toMatchObject({ template, content: { subject: 'Hi Bo' } });
  });

  it('several emails answer like a strict batch, and a stage refusal names the email', async () => {
    const ports = memoryAcceptPorts();
    const ok = await acceptEmails(fromProducer([parsed({ subject: 'a' }), parsed({ subject: 'b' })]), ports);
    expect(JSON.parse(ok.body).data).toHaveLength(2);
    const refused = fromProducer([parsed({ subject: 'a' }), parsed({ subject: 'b', topic_id: 't' })]);
    await expect(acceptEmails(refused, ports)).rejects.toMatchObject({
      message: 'emails[1].topic_id: no topic with this id exists',
    });
  });

  it('refuses an empty list', async () => {
    await expect(acceptEmails(fromProducer([]), memoryAcceptPorts())).rejects.toMatchObject({
      errorName: 'validation_error',
    });
  });
});

describe('messageIdFor', () => {
  it.each([
    ['Acme <Hello@ACME.test>', '<id@acme.test>'],
    ['hello@acme.test', '<id@acme.test>'],
    ['', '<id@petrel.local>'],
    // IDN sender domains as A-labels (RFC 5890), as the mailer writes the header
    ['Büro <sender@bücher.example>', '<id@xn--bcher-kva.example>'],
    ['sender@BÜCHER.example', '<id@xn--bcher-kva.example>'],
    ['sender@münchen.example', '<id@xn--mnchen-3ya.example>'],
    ['sender@xn--bcher-kva.example', '<id@xn--bcher-kva.example>'],
    ['sender@例え.テスト', '<id@xn--r8jz45g.xn--zckzah>'],
  ])('%s → %s', (from, expected) => {
    expect(messageIdFor('id', from)).toBe(expected);
  });
});

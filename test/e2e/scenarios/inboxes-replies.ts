/**
 * Replies, forwards and drafts of an inbox through the official SDK
 * (`resend.inboxes.threads.emails.reply/forward`, `resend.inboxes.drafts.*`), shared by the
 * single-node suite (inbox-replies.e2e.test.ts) and the Redis Cluster suite
 * (audience-cluster.e2e.test.ts): mail arrives over SMTP at an inbox on a domain the team has
 * verified (its DKIM records in a local DNS server), and each reply, forward and draft send
 * reaches the SMTP sink with RFC 5322 threading headers, `Re:`/`Fwd:` subjects, the inbox's
 * `from_name`, the quoted or forwarded original and its attachment, signed (mailauth verifies
 * against the local DNS). The sent messages join their thread as `outbound`; the `inbox.*`
 * events reach a real webhook receiver, signed. The stack runs with {@link inboxRepliesEnv}.
 */
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil, type SinkMessage, type TestDnsServer } from '@petrel/testing';
import { ok, type Stack } from '../helpers.js';
import { INBOUND_DOMAIN, mta } from './inbound.js';
import { inboxHook, type InboxHook } from './inboxes-support.js';

/** The team's verified sending domain the inbox is at (also a receiving domain). */
export const REPLIES_DOMAIN = 'replies.e2e.test';

/** The stack's settings: DNS answered by `dnsAddress`, and mail for the domain received. */
export function inboxRepliesEnv(dnsAddress: string): Record<string, string> {
  return { DNS_SERVERS: dnsAddress, INBOUND_DOMAINS: `${INBOUND_DOMAIN},${REPLIES_DOMAIN}` };
}

export function inboxReplyScenarios(current: () => Stack, dns: () => TestDnsServer): void {
  describe('inbox replies, forwards and drafts', () => inboxReplyTests(current, dns));
}

function inboxReplyTests(current: () => Stack, dns: () => TestDnsServer): void {
  const DOMAIN = REPLIES_DOMAIN;
  const address = `support@${DOMAIN}`;
  const resolver = new Resolver({ timeout: 1_000, tries: 2 });
  let stack: Stack;
  let hook: InboxHook;
  let inboxId: string;
  let n = 0;
  const tag = () => `${++n}x${Date.now()}`;

  beforeAll(async () => {
    stack = current();
    resolver.setServers([dns().address]);
    const domain = ok(await stack.resend.domains.create({ name: DOMAIN }));
    for (const r of domain.records) dns().add({ name: r.name, type: r.type as 'TXT' | 'MX', value: r.value });
    ok(await stack.resend.domains.verify(domain.id));
    expect(ok(await stack.resend.domains.get(domain.id)).status).toBe('verified');
    hook = await inboxHook(stack, [
      'inbox.email.sent',
      'inbox.draft.created',
      'inbox.draft.updated',
      'inbox.draft.deleted',
      'inbox.draft.sent',
    ]);
    inboxId = ok(await stack.resend.inboxes.create({ emailAddress: address, fromName: 'Acme Support' })).id;
  });
  afterAll(async () => {
    await hook?.stop();
  });
  beforeEach(() => {
    stack = current();
  });

  const mailauthResolver = (name: string, rrtype: string) =>
    rrtype === 'TXT' ? resolver.resolveTxt(name) : (resolver.resolve(name, rrtype) as Promise<string[]>);

  async function dkim(raw: Buffer): Promise<string[]> {
    return (await dkimVerify(raw, { resolver: mailauthResolver })).results.map(
      (r) => `${r.signingDomain}: ${r.status.result}`,
    );
  }

  /** The message the sink got for an email id (its Message-ID carries the id). */
  async function delivered(emailId: string): Promise<SinkMessage> {
    await stack.settled([emailId]);
    const m = stack.sink.messages.find((x) => x.parsed.messageId === `<${emailId}@${DOMAIN}>`);
    if (!m) throw new Error(`no message for ${emailId} at the sink`);
    return m;
  }

  const header = (m: SinkMessage, name: string) =>
    m.parsed.headers.find((h) => h.key === name.toLowerCase())?.value ?? null;

  /** Sends a message over SMTP to the inbox; its thread and message once filed. */
  async function receive(opts: {
    subject: string;
    messageId: string;
    cc?: string;
    attachments?: { filename: string; content: Buffer }[];
  }): Promise<{ threadId: string; emailId: string }> {
    await mta(stack.smtpPorts.inbound!).sendMail({
      from: 'Jane Customer <jane@customer.test>',
      to: address,
      ...(opts.cc && { cc: opts.cc }),
      subject: opts.subject,
      messageId: opts.messageId,
      text: 'Where is my order?\nIt was due Monday.',
      html: '<p>Where is my order?</p><p>It was due Monday.</p>',
      ...(opts.attachments && { attachments: opts.attachments }),
    });
    const thread = await waitUntil(
      async () =>
        (await stack.resend.inboxes.threads.list({ inboxId })).data?.data.find(
          (t) => t.subject === opts.subject,
        ),
      { message: `the thread of ${opts.subject}` },
    );
    const emails = ok(await stack.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id }));
    return { threadId: thread.id, emailId: emails.data[0]!.id };
  }

  describe('inbox replies and forwards (resend.inboxes.threads.emails.reply/forward)', () => {
    it('reply and replyAll reach the sink threaded, quoted, from the inbox, DKIM-signed; the thread shows them outbound', async () => {
      const t = tag();
      const originalId = `<order.${t}@customer.test>`;
      const { threadId, emailId } = await receive({
        subject: `Order ${t}`,
        messageId: originalId,
        cc: 'Bob <bob@customer.test>',
      });

      const reply = ok(
        await stack.resend.inboxes.threads.emails.reply({
          inboxId,
          threadId,
          emailId,
          text: 'It ships today.',
          html: '<p>It ships today.</p>',
        }),
      );
      const m = await delivered(reply.id);
      expect(m.parsed.from).toMatchObject({ name: 'Acme Support', address });
      expect(m.parsed.subject).toBe(`Re: Order ${t}`);
      expect(m.parsed.inReplyTo).toBe(originalId);
      expect(header(m, 'references')).toBe(originalId);
      expect(m.envelope.to).toEqual(['jane@customer.test']);
      expect(m.parsed.text).toContain('It ships today.');
      expect(m.parsed.text).toContain('> Where is my order?');
      expect(m.parsed.html).toContain('<blockquote');
      expect(await dkim(m.raw)).toEqual([`${DOMAIN}: pass`]);

      // replyAll to the reply's parent: the sender and every other recipient but the inbox itself;
      // a subject that has its Re: already gets no second one
      const all = ok(
        await stack.resend.inboxes.threads.emails.reply({
          emailAddress: address,
          threadId,
          emailId,
          text: 'Copying everyone.',
          subject: `Re: Order ${t}`,
          replyAll: true,
          cc: 'manager@customer.test',
        }),
      );
      const m2 = await delivered(all.id);
      expect(m2.parsed.subject).toBe(`Re: Order ${t}`);
      expect([...m2.envelope.to].sort()).toEqual(
        ['bob@customer.test', 'jane@customer.test', 'manager@customer.test'].sort(),
      );
      expect(m2.parsed.to!.map((a) => a.address)).toEqual(['jane@customer.test']);
      expect(m2.parsed.cc!.map((a) => a.address)).toEqual(['bob@customer.test', 'manager@customer.test']);

      // a reply to the reply: References is the chain (RFC 5322 section 3.6.4)
      const again = ok(
        await stack.resend.inboxes.threads.emails.reply({ inboxId, threadId, emailId: reply.id, text: 'PS' }),
      );
      const m3 = await delivered(again.id);
      expect(m3.parsed.subject).toBe(`Re: Order ${t}`);
      expect(m3.parsed.inReplyTo).toBe(`<${reply.id}@${DOMAIN}>`);
      expect(header(m3, 'references')).toBe(`${originalId} <${reply.id}@${DOMAIN}>`);
      expect(m3.envelope.to).toEqual(['jane@customer.test']);

      const emails = ok(await stack.resend.inboxes.threads.emails.list({ inboxId, threadId }));
      expect(emails.data.map((e) => [e.id, e.direction])).toEqual([
        [emailId, 'inbound'],
        [reply.id, 'outbound'],
        [all.id, 'outbound'],
        [again.id, 'outbound'],
      ]);
      const out = ok(await stack.resend.inboxes.threads.emails.get({ inboxId, threadId, emailId: reply.id }));
      expect(out).toMatchObject({
        direction: 'outbound',
        from: `Acme Support <${address}>`,
        to: ['jane@customer.test'],
        subject: `Re: Order ${t}`,
        message_id: `${reply.id}@${DOMAIN}`,
        read: true,
      });
      expect(out.text).toContain('> Where is my order?');
      const listed = ok(await stack.resend.inboxes.threads.list({ inboxId })).data.find(
        (x) => x.id === threadId,
      );
      expect(listed).toMatchObject({ email_count: 4, has_draft: false, folder: 'inbox' });

      const sent = await hook.signed('inbox.email.sent', reply.id);
      expect(sent).toMatchObject({
        source: 'api',
        inbox_id: inboxId,
        thread_id: threadId,
        email_id: reply.id,
        email: { id: reply.id, direction: 'outbound' },
      });
    });

    it('forward carries the original attachment and a Fwd: subject; bad input is a 4xx naming the field', async () => {
      const t = tag();
      const pdf = Buffer.from(`%PDF-1.4 invoice ${t}`);
      const { threadId, emailId } = await receive({
        subject: `Invoice ${t}`,
        messageId: `<invoice.${t}@customer.test>`,
        attachments: [{ filename: 'invoice.pdf', content: pdf }],
      });
      const fwd = ok(
        await stack.resend.inboxes.threads.emails.forward({
          inboxId,
          threadId,
          emailId,
          to: 'accounting@dest.test',
          text: 'Please pay this one.',
        }),
      );
      const m = await delivered(fwd.id);
      expect(m.parsed.subject).toBe(`Fwd: Invoice ${t}`);
      expect(m.envelope.to).toEqual(['accounting@dest.test']);
      expect(m.parsed.inReplyTo).toBe(`<invoice.${t}@customer.test>`);
      expect(m.parsed.text).toContain('Please pay this one.');
      expect(m.parsed.text).toContain('---------- Forwarded message ---------');
      expect(m.parsed.text).toContain('From: jane@customer.test');
      const files = m.parsed.attachments.map((a) => [
        a.filename,
        Buffer.from(a.content as ArrayBuffer).toString(),
      ]);
      expect(files).toEqual([['invoice.pdf', pdf.toString()]]);
      expect(await dkim(m.raw)).toEqual([`${DOMAIN}: pass`]);
      // the thread's copy names the attachment by the sent email's attachment id, which downloads
      const copy = ok(await stack.resend.inboxes.threads.emails.get({ inboxId, threadId, emailId: fwd.id }));
      const sent = ok(
        await stack.resend.emails.attachments.get({ emailId: fwd.id, id: copy.attachments[0]!.id }),
      );
      expect(sent).toMatchObject({ filename: 'invoice.pdf', size: pdf.length });
      expect(Buffer.from(await (await fetch(sent.download_url)).arrayBuffer()).equals(pdf)).toBe(true);

      // an email of another thread of the inbox
      const other = await receive({ subject: `Other ${t}`, messageId: `<other.${t}@customer.test>` });
      const wrong = await stack.resend.inboxes.threads.emails.reply({
        inboxId,
        threadId,
        emailId: other.emailId,
        text: 'x',
      });
      expect(wrong.error).toMatchObject({
        statusCode: 422,
        message: `email_id: is not a message of thread ${threadId}`,
      });
      const owned = await stack.resend.inboxes.threads.emails.reply({
        inboxId,
        threadId,
        emailId,
        text: 'x',
        headers: { 'in-reply-to': '<x@y>' },
      });
      expect(owned.error).toMatchObject({
        statusCode: 422,
        message:
          'headers["in-reply-to"]: is set by Petrel on replies, forwards and drafts and cannot be a custom header',
      });
      const noBody = await stack.resend.inboxes.threads.emails.reply({ inboxId, threadId, emailId } as never);
      expect(noBody.error).toMatchObject({
        statusCode: 422,
        message: 'body: at least one of html, text is required',
      });
      const noTo = await stack.resend.inboxes.threads.emails.forward({ inboxId, threadId, emailId } as never);
      expect(noTo.error).toMatchObject({ statusCode: 422 });
      expect(noTo.error!.message).toMatch(/^to: /);
    });
  });

  describe('inbox drafts (resend.inboxes.drafts.*)', () => {
    it('a reply draft with a file: create (idempotent), get, list, update, send (idempotent) to the sink; counts and events', async () => {
      const t = tag();
      const originalId = `<draft.${t}@customer.test>`;
      const { threadId, emailId } = await receive({ subject: `Refund ${t}`, messageId: originalId });
      const key = `draft-${t}`;
      const payload = {
        inboxId,
        threadId,
        replyToEmailId: emailId,
        text: 'Refund approved.',
        attachments: [
          { filename: 'notes.txt', content: Buffer.from('refund notes'), contentType: 'text/plain' },
        ],
      };
      const created = ok(await stack.resend.inboxes.drafts.create(payload, { idempotencyKey: key }));
      expect(created).toEqual({ object: 'inbox_draft', id: expect.any(String) });
      expect(ok(await stack.resend.inboxes.drafts.create(payload, { idempotencyKey: key })).id).toBe(
        created.id,
      );

      const draft = ok(await stack.resend.inboxes.drafts.get({ inboxId, draftId: created.id }));
      expect(draft).toEqual({
        object: 'inbox_draft',
        id: created.id,
        type: 'reply',
        to: null,
        cc: [],
        bcc: [],
        subject: null,
        html: null,
        text: 'Refund approved.',
        thread_id: threadId,
        reply_to_email_id: emailId,
        email_id: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        attachments: [
          { id: expect.any(String), filename: 'notes.txt', content_type: 'text/plain', size: 12 },
        ],
      });
      const listed = ok(await stack.resend.inboxes.drafts.list({ inboxId }));
      expect(listed.data.find((d) => d.id === created.id)).toMatchObject({
        type: 'reply',
        snippet: 'Refund approved.',
        thread_id: threadId,
      });
      const before = ok(await stack.resend.inboxes.get(inboxId)).drafts;
      expect(before).toBeGreaterThanOrEqual(1);
      const thread = () =>
        stack.resend.inboxes.threads
          .list({ inboxId })
          .then((r) => r.data!.data.find((x) => x.id === threadId)!);
      expect((await thread()).has_draft).toBe(true);

      ok(
        await stack.resend.inboxes.drafts.update({
          inboxId,
          draftId: created.id,
          subject: `Your refund ${t}`,
        }),
      );
      expect(ok(await stack.resend.inboxes.drafts.get({ inboxId, draftId: created.id })).subject).toBe(
        `Your refund ${t}`,
      );

      const sendKey = `send-${t}`;
      const sent = ok(
        await stack.resend.inboxes.drafts.send({ inboxId, draftId: created.id }, { idempotencyKey: sendKey }),
      );
      expect(
        ok(
          await stack.resend.inboxes.drafts.send(
            { inboxId, draftId: created.id },
            { idempotencyKey: sendKey },
          ),
        ).id,
      ).toBe(sent.id);
      const again = await stack.resend.inboxes.drafts.send({ inboxId, draftId: created.id });
      expect(again.error).toMatchObject({ statusCode: 409 });

      const m = await delivered(sent.id);
      expect(m.parsed.subject).toBe(`Your refund ${t}`);
      expect(m.parsed.inReplyTo).toBe(originalId);
      expect(m.parsed.from).toMatchObject({ name: 'Acme Support', address });
      expect(m.envelope.to).toEqual(['jane@customer.test']);
      expect(m.parsed.attachments.map((a) => a.filename)).toEqual(['notes.txt']);
      expect(await dkim(m.raw)).toEqual([`${DOMAIN}: pass`]);
      await stack.drained();
      expect(stack.sink.messages.filter((x) => x.parsed.messageId === `<${sent.id}@${DOMAIN}>`)).toHaveLength(
        1,
      );

      expect(ok(await stack.resend.inboxes.drafts.get({ inboxId, draftId: created.id })).email_id).toBe(
        sent.id,
      );
      expect(ok(await stack.resend.inboxes.get(inboxId)).drafts).toBe(before - 1);
      expect(await thread()).toMatchObject({ has_draft: false, email_count: 2 });
      const late = await stack.resend.inboxes.drafts.update({ inboxId, draftId: created.id, text: 'late' });
      expect(late.error).toMatchObject({ statusCode: 409 });

      expect(await hook.signed('inbox.draft.created', created.id)).toMatchObject({
        source: 'api',
        inbox_id: inboxId,
        thread_id: threadId,
        draft_id: created.id,
        draft: { id: created.id, type: 'reply' },
      });
      expect(await hook.signed('inbox.draft.updated', created.id)).toMatchObject({ draft_id: created.id });
      expect(await hook.signed('inbox.draft.sent', created.id)).toMatchObject({
        draft_id: created.id,
        email_id: sent.id,
        thread_id: threadId,
        email: { id: sent.id, direction: 'outbound' },
        draft: { id: created.id, email_id: sent.id },
      });
    });

    it('standalone drafts: remove, send as a new thread in sent; a reply draft to an email of another thread is a 422', async () => {
      const t = tag();
      const gone = ok(
        await stack.resend.inboxes.drafts.create({ inboxId, to: 'x@dest.test', text: 'never mind' }),
      );
      expect(ok(await stack.resend.inboxes.drafts.remove({ inboxId, draftId: gone.id }))).toEqual({
        object: 'inbox_draft',
        id: gone.id,
        deleted: true,
      });
      expect((await stack.resend.inboxes.drafts.get({ inboxId, draftId: gone.id })).error).toMatchObject({
        statusCode: 404,
      });
      expect(await hook.signed('inbox.draft.deleted', gone.id)).toMatchObject({ draft_id: gone.id });

      const noTo = ok(
        await stack.resend.inboxes.drafts.create({ emailAddress: address, subject: `No one ${t}` }),
      );
      const refused = await stack.resend.inboxes.drafts.send({ inboxId, draftId: noTo.id });
      expect(refused.error).toMatchObject({
        statusCode: 422,
        message: 'to: is required to send a draft that is not a reply',
      });

      const d = ok(
        await stack.resend.inboxes.drafts.create({
          inboxId,
          to: ['newcustomer@dest.test'],
          subject: `Welcome ${t}`,
          html: '<p>Welcome aboard</p>',
        }),
      );
      const sent = ok(await stack.resend.inboxes.drafts.send({ inboxId, draftId: d.id }));
      const m = await delivered(sent.id);
      expect(m.parsed.subject).toBe(`Welcome ${t}`);
      expect(m.parsed.inReplyTo).toBeUndefined();
      const thread = ok(await stack.resend.inboxes.threads.list({ inboxId, folders: ['sent'] })).data.find(
        (x) => x.subject === `Welcome ${t}`,
      );
      expect(thread).toMatchObject({ folder: 'sent', email_count: 1, read: true });
      const emails = ok(await stack.resend.inboxes.threads.emails.list({ inboxId, threadId: thread!.id }));
      expect(emails.data).toMatchObject([
        { id: sent.id, direction: 'outbound', html: '<p>Welcome aboard</p>' },
      ]);

      const a = await receive({ subject: `A ${t}`, messageId: `<a.${t}@customer.test>` });
      const b = await receive({ subject: `B ${t}`, messageId: `<b.${t}@customer.test>` });
      const bad = await stack.resend.inboxes.drafts.create({
        inboxId,
        threadId: a.threadId,
        replyToEmailId: b.emailId,
        text: 'x',
      });
      expect(bad.error).toMatchObject({
        statusCode: 422,
        message: `reply_to_email_id: is not a message of thread ${a.threadId}`,
      });
    });
  });
}

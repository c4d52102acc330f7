/**
 * The inbox scenario shared by the single-node suite (inboxes.e2e.test.ts) and the Redis Cluster
 * suite (audience-cluster.e2e.test.ts), through the official SDK (`resend.inboxes.*`): an inbox
 * at the receiving domain, two mails sent over SMTP to its inbound server that thread by
 * In-Reply-To/References, the thread listed, searched and labelled, and a reply that reaches the
 * SMTP sink threaded and joins the thread as `outbound`. Every inbox key of a team lives in the
 * team's hash slot, so a script or transaction that strayed out of it fails here with CROSSSLOT.
 * The stack runs with INBOUND_TEST_ENV (scenarios/inbound.ts).
 */
import { beforeEach, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { INBOUND_DOMAIN, mta } from './inbound.js';
import { ok, type Stack } from '../helpers.js';

export function inboxScenarios(current: () => Stack): void {
  let stack: Stack;
  let n = 0;
  beforeEach(() => {
    stack = current();
  });

  it('inboxes: two mails over SMTP thread; list, search, label; a reply reaches the sink threaded', async () => {
    const t = `${++n}x${Date.now()}`;
    const address = `help.${t}@${INBOUND_DOMAIN}`;
    const customer = `carla.${t}@customer.test`;
    const inbox = ok(await stack.resend.inboxes.create({ emailAddress: address, fromName: 'Acme Help' }));
    const sel = { inboxId: inbox.id };

    const first = `<first.${t}@customer.test>`;
    const second = `<second.${t}@customer.test>`;
    const transport = mta(stack.smtpPorts.inbound!);
    await transport.sendMail({
      from: customer,
      to: address,
      subject: `Broken kettle ${t}`,
      messageId: first,
      text: 'The kettle stopped heating.',
    });
    await transport.sendMail({
      from: customer,
      to: address,
      subject: `Re: Broken kettle ${t}`,
      messageId: second,
      inReplyTo: first,
      references: [first],
      text: 'Serial number 4711 attached below.',
    });

    const thread = await waitUntil(
      async () => {
        const [only, ...more] = ok(await stack.resend.inboxes.threads.list(sel)).data;
        return only?.email_count === 2 && more.length === 0 ? only : undefined;
      },
      { timeoutMs: 20_000, message: 'both mails in one thread' },
    );
    expect(thread).toMatchObject({
      subject: `Broken kettle ${t}`,
      from: customer,
      read: false,
      folder: 'inbox',
    });
    const emails = ok(await stack.resend.inboxes.threads.emails.list({ ...sel, threadId: thread.id })).data;
    // the API shows a Message-ID without its angle brackets
    expect(emails.map((e) => `<${e.message_id}>`)).toEqual([first, second]);

    // search: a word of the second mail's body, and the sender
    const found = ok(await stack.resend.inboxes.threads.search({ ...sel, query: 'serial 4711' })).data;
    expect(found.map((x) => [x.id, x.matched_email_id])).toEqual([[thread.id, emails[1]!.id]]);
    const bySender = ok(await stack.resend.inboxes.threads.search({ ...sel, from: [customer] })).data;
    expect(bySender.map((x) => x.id)).toEqual([thread.id]);

    // a label: on the thread, and its listing
    const label = ok(
      await stack.resend.inboxes.labels.create({ ...sel, name: 'Hardware', color: '#00AA55' }),
    );
    const labels = ok(
      await stack.resend.inboxes.threads.labels.add({ ...sel, threadId: thread.id, labels: [label.id] }),
    );
    expect(labels.data).toEqual([{ id: label.id, name: 'Hardware', color: '#00AA55' }]);
    const labelled = ok(await stack.resend.inboxes.threads.list({ ...sel, labels: [label.id] })).data;
    expect(labelled.map((x) => x.id)).toEqual([thread.id]);

    // a reply to the newest mail: at the sink with the thread's headers, then in the thread
    const reply = ok(
      await stack.resend.inboxes.threads.emails.reply({
        ...sel,
        threadId: thread.id,
        emailId: emails[1]!.id,
        text: 'A new kettle is on its way.',
      }),
    );
    await stack.settled([reply.id]);
    const m = await waitUntil(
      () => stack.sink.messages.find((x) => x.parsed.messageId === `<${reply.id}@${INBOUND_DOMAIN}>`),
      { timeoutMs: 20_000, message: 'the reply at the SMTP sink' },
    );
    expect(m.envelope.to).toEqual([customer]);
    expect(m.parsed.from).toMatchObject({ name: 'Acme Help', address });
    expect(m.parsed.subject).toBe(`Re: Broken kettle ${t}`);
    expect(m.parsed.inReplyTo).toBe(second);
    expect(m.parsed.headers.find((h) => h.key === 'references')?.value).toBe(`${first} ${second}`);
    const after = ok(await stack.resend.inboxes.threads.emails.list({ ...sel, threadId: thread.id })).data;
    expect(after.map((e) => [e.id, e.direction])).toEqual([
      [emails[0]!.id, 'inbound'],
      [emails[1]!.id, 'inbound'],
      [reply.id, 'outbound'],
    ]);
  });
}

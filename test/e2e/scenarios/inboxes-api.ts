/**
 * Inboxes through the official SDK (`resend.inboxes.*`), shared by the single-node suite
 * (inboxes.e2e.test.ts) and the Redis Cluster suite (audience-cluster.e2e.test.ts): inboxes,
 * labels, agent settings, and real mail sent over SMTP to the inbound server threading into them
 * — Gmail-, Outlook- and Apple-Mail-style replies (test/fixtures/inboxes), a reply whose client
 * dropped its references, and a stranger using the same subject. The `inbox.*` events of inboxes
 * and threads reach a real webhook receiver, signed. The stack runs with INBOUND_TEST_ENV
 * (scenarios/inbound.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { ok, type Stack } from '../helpers.js';
import { INBOUND_DOMAIN, mta } from './inbound.js';
import { inboxHook, type InboxHook } from './inboxes-support.js';

function fixture(name: string, vars: Record<string, string>): string {
  let s = readFileSync(new URL(`../../fixtures/inboxes/${name}`, import.meta.url), 'utf8');
  for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{{${k}}}`, v);
  return s.replace(/\r?\n/g, '\r\n');
}

export function inboxApiScenarios(current: () => Stack): void {
  describe('inboxes (resend.inboxes.*)', () => inboxApiTests(current));
}

function inboxApiTests(current: () => Stack): void {
  let stack: Stack;
  let hook: InboxHook;
  let n = 0;
  const tag = () => `${++n}x${Date.now()}`;
  beforeAll(async () => {
    hook = await inboxHook(current(), [
      'inbox.created',
      'inbox.updated',
      'inbox.deleted',
      'inbox.thread.created',
      'inbox.email.received',
      'inbox.thread.labels.updated',
      'inbox.thread.folder.updated',
    ]);
  });
  afterAll(async () => {
    await hook?.stop();
  });
  beforeEach(() => {
    stack = current();
  });

  async function deliver(raw: string, from: string, to: string): Promise<void> {
    const info = await mta(stack.smtpPorts.inbound!).sendMail({ envelope: { from, to: [to] }, raw });
    expect(info.response).toMatch(/^250 /);
  }

  it('create, get by id and by address, list, update, remove; bad input is a 4xx naming the field', async () => {
    const address = `sales.${tag()}@${INBOUND_DOMAIN}`;
    const created = ok(
      await stack.resend.inboxes.create({ emailAddress: address, name: 'Sales', fromName: 'Acme Sales' }),
    );
    expect(created).toEqual({ object: 'inbox', id: expect.any(String) });

    const byId = ok(await stack.resend.inboxes.get(created.id));
    expect(byId).toMatchObject({
      object: 'inbox',
      id: created.id,
      name: 'Sales',
      email_address: address,
      from_name: 'Acme Sales',
      unread: 0,
      drafts: 0,
      last_received: null,
    });
    expect(ok(await stack.resend.inboxes.get(address.toUpperCase())).id).toBe(created.id);

    const listed = ok(await stack.resend.inboxes.list({ limit: 100 }));
    expect(listed.object).toBe('list');
    expect(listed.data.find((i) => i.id === created.id)).toMatchObject({ email_address: address, unread: 0 });

    expect(ok(await stack.resend.inboxes.update(address, { name: 'Sales EU' }))).toEqual({
      object: 'inbox',
      id: created.id,
    });
    expect(ok(await stack.resend.inboxes.get(created.id)).name).toBe('Sales EU');
    expect(await hook.signed('inbox.created', created.id)).toMatchObject({
      inbox_id: created.id,
      inbox: { id: created.id, email_address: address, name: 'Sales' },
    });
    expect(await hook.signed('inbox.updated', created.id)).toMatchObject({
      inbox_id: created.id,
      inbox: { id: created.id, name: 'Sales EU' },
    });

    const outside = await stack.resend.inboxes.create({ emailAddress: `x.${tag()}@not-ours.example` });
    expect(outside.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(outside.error!.message).toMatch(
      /^email_address: must be at one of the team’s receiving domains \(.*in\.e2e\.test/,
    );
    const twice = await stack.resend.inboxes.create({ emailAddress: address });
    expect(twice.error).toMatchObject({
      statusCode: 409,
      message: 'email_address: an inbox with this address exists already',
    });
    const noName = await stack.resend.inboxes.update(created.id, {} as { name: string });
    expect(noName.error).toMatchObject({
      statusCode: 422,
      message: 'body: at least one of name, from_name is required',
    });

    expect(ok(await stack.resend.inboxes.remove(created.id))).toEqual({
      object: 'inbox',
      id: created.id,
      deleted: true,
    });
    expect((await stack.resend.inboxes.get(created.id)).error).toMatchObject({ statusCode: 404 });
    expect((await stack.resend.inboxes.remove(created.id)).error).toMatchObject({ statusCode: 404 });
    expect(await hook.signed('inbox.deleted', created.id)).toMatchObject({ inbox_id: created.id });
  });

  it('labels and agent settings: list, create, update, remove; validation names the field', async () => {
    const inbox = ok(
      await stack.resend.inboxes.create({ emailAddress: `labels.${tag()}@${INBOUND_DOMAIN}` }),
    );
    const sel = { inboxId: inbox.id };
    const vip = ok(await stack.resend.inboxes.labels.create({ ...sel, name: 'VIP', color: '#e93d82' }));
    expect(vip).toEqual({ object: 'inbox_label', id: expect.any(String) });
    ok(await stack.resend.inboxes.labels.update({ ...sel, labelId: vip.id, name: 'Very important' }));
    const labels = ok(await stack.resend.inboxes.labels.list(sel));
    expect(labels).toEqual({
      object: 'list',
      data: [{ id: vip.id, name: 'Very important', color: '#E93D82', created_at: expect.any(String) }],
    });
    const badColor = await stack.resend.inboxes.labels.create({ ...sel, name: 'x', color: 'red' });
    expect(badColor.error).toMatchObject({
      statusCode: 422,
      message: "color: must be a hex colour '#RRGGBB'",
    });
    expect(ok(await stack.resend.inboxes.labels.remove({ ...sel, labelId: vip.id }))).toEqual({
      object: 'inbox_label',
      id: vip.id,
      deleted: true,
    });
    expect((await stack.resend.inboxes.labels.remove({ ...sel, labelId: vip.id })).error).toMatchObject({
      statusCode: 404,
    });

    expect(ok(await stack.resend.inboxes.agent.get(sel))).toEqual({
      object: 'inbox_agent',
      instructions: null,
      tone: null,
      actions: [],
    });
    ok(
      await stack.resend.inboxes.agent.update({
        ...sel,
        instructions: 'Label refund requests',
        tone: 'concise_professional',
        actions: ['add_labels', 'draft_reply'],
      }),
    );
    expect(ok(await stack.resend.inboxes.agent.get(sel))).toEqual({
      object: 'inbox_agent',
      instructions: 'Label refund requests',
      tone: 'concise_professional',
      actions: ['add_labels', 'draft_reply'],
    });
    const badTone = await stack.resend.inboxes.agent.update({ ...sel, tone: 'shouty' as 'concise_casual' });
    expect(badTone.error).toMatchObject({ statusCode: 422 });
    expect(badTone.error!.message).toMatch(/^tone: must be one of 'concise_professional'/);
  });

  it('mail to the address threads by its headers (Gmail, Outlook, Apple Mail), by subject when they are gone, and keeps strangers apart', async () => {
    const t = tag();
    const address = `support.${t}@${INBOUND_DOMAIN}`;
    const customer = `ada.${t}@gmail.example`;
    const stranger = `eve.${t}@other.example`;
    const inbox = ok(await stack.resend.inboxes.create({ emailAddress: address, name: 'Support' }));
    const sel = { emailAddress: address };
    const vars = { INBOX: address, CUSTOMER: customer, STRANGER: stranger, TAG: t };
    for (const name of [
      'original.eml',
      'gmail-reply.eml',
      'outlook-reply.eml',
      'apple-mail-reply.eml',
      'headerless-reply.eml',
    ]) {
      await deliver(fixture(name, vars), customer, address);
    }
    await deliver(fixture('stranger.eml', vars), stranger, address);

    const threads = await waitUntil(
      async () => {
        const r = ok(await stack.resend.inboxes.threads.list(sel));
        const total = r.data.reduce((s, x) => s + x.email_count, 0);
        return total === 6 ? r.data : undefined;
      },
      { timeoutMs: 20_000, message: 'six messages filed into the inbox' },
    );
    expect(threads).toHaveLength(2);
    const main = threads.find((x) => x.email_count === 5)!;
    const other = threads.find((x) => x.email_count === 1)!;
    expect(main).toMatchObject({
      subject: 'Order 7 is late',
      from: customer,
      to: [address],
      labels: [],
      has_attachment: true,
      has_draft: false,
      read: false,
      folder: 'inbox',
    });
    expect(other).toMatchObject({ from: stranger, subject: 'Re: Order 7 is late' });
    expect(ok(await stack.resend.inboxes.get(inbox.id))).toMatchObject({
      unread: 2,
      last_received: expect.any(String),
    });

    // the messages, oldest first, with their bodies; one is also the received email
    const emails = ok(await stack.resend.inboxes.threads.emails.list({ ...sel, threadId: main.id }));
    expect(emails.data.map((m) => m.subject)).toEqual([
      'Order 7 is late',
      'Re: Order 7 is late',
      'RE: Order 7 is late',
      'Re: Order 7 is late',
      'AW: Re: Order 7 is late',
    ]);
    expect(emails.data.every((m) => m.direction === 'inbound' && m.from === customer)).toBe(true);
    expect(emails.data[0]!.text).toContain('parcel lost');
    expect(emails.data[2]!.attachments).toEqual([
      { id: expect.any(String), filename: 'receipt.pdf', size: expect.any(Number) },
    ]);
    expect(emails.data[3]!.message_id).toBe(`8F1C2D3E-${t}@icloud.com`);
    const one = ok(
      await stack.resend.inboxes.threads.emails.get({
        ...sel,
        threadId: main.id,
        emailId: emails.data[1]!.id,
      }),
    );
    expect(one).toMatchObject({ id: emails.data[1]!.id, html: expect.stringContaining('Any news?') });
    const received = ok(await stack.resend.emails.receiving.get(emails.data[1]!.id));
    expect(received.subject).toBe('Re: Order 7 is late');
    // an email of another thread is not found under this one
    const wrong = await stack.resend.inboxes.threads.emails.get({
      ...sel,
      threadId: other.id,
      emailId: emails.data[0]!.id,
    });
    expect(wrong.error).toMatchObject({ statusCode: 404 });

    // labels on the thread
    const urgent = ok(await stack.resend.inboxes.labels.create({ ...sel, name: 'urgent', color: '#FF0000' }));
    const refund = ok(await stack.resend.inboxes.labels.create({ ...sel, name: 'refund' }));
    expect(
      ok(await stack.resend.inboxes.threads.labels.add({ ...sel, threadId: main.id, labels: [urgent.id] })),
    ).toEqual({
      object: 'list',
      data: [{ id: urgent.id, name: 'urgent', color: '#FF0000' }],
    });
    const set = ok(
      await stack.resend.inboxes.threads.labels.set({
        ...sel,
        threadId: main.id,
        labels: [refund.id, urgent.id],
      }),
    );
    expect(set.data.map((l) => l.id)).toEqual([refund.id, urgent.id]);
    const removed = ok(
      await stack.resend.inboxes.threads.labels.remove({ ...sel, threadId: main.id, labelId: urgent.id }),
    );
    expect(removed.data.map((l) => l.id)).toEqual([refund.id]);
    const unknown = await stack.resend.inboxes.threads.labels.add({
      ...sel,
      threadId: main.id,
      labels: ['0190b7c2-5a3e-7d41-9f2a-000000000000'],
    });
    expect(unknown.error).toMatchObject({
      statusCode: 422,
      message: 'labels[0]: no label 0190b7c2-5a3e-7d41-9f2a-000000000000 in this inbox',
    });
    const byLabel = ok(await stack.resend.inboxes.threads.list({ ...sel, labels: [refund.id] }));
    expect(byLabel.data.map((x) => x.id)).toEqual([main.id]);

    // read and folders
    expect(
      ok(
        await stack.resend.inboxes.threads.update({
          ...sel,
          threadId: main.id,
          read: true,
          folder: 'archive',
        }),
      ),
    ).toEqual({
      object: 'inbox_thread',
      id: main.id,
      subject: 'Order 7 is late',
      folder: 'archive',
      labels: [{ id: refund.id, name: 'refund', color: '#E93D82' }],
      read: true,
    });
    expect(ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: main.id }))).toMatchObject({
      folder: 'archive',
      read: true,
    });
    expect(
      ok(await stack.resend.inboxes.threads.list({ ...sel, folders: ['inbox'] })).data.map((x) => x.id),
    ).toEqual([other.id]);
    expect(ok(await stack.resend.inboxes.threads.list({ ...sel, read: true })).data.map((x) => x.id)).toEqual(
      [main.id],
    );
    const page1 = ok(await stack.resend.inboxes.threads.list({ ...sel, limit: 1 }));
    expect(page1.has_more).toBe(true);
    const page2 = ok(await stack.resend.inboxes.threads.list({ ...sel, limit: 1, after: page1.data[0]!.id }));
    expect(page2.data).toHaveLength(1);
    expect(page2.data[0]!.id).not.toBe(page1.data[0]!.id);
    const badFolder = await stack.resend.inboxes.threads.update({
      ...sel,
      threadId: main.id,
      folder: 'sent' as 'inbox',
    });
    expect(badFolder.error).toMatchObject({
      statusCode: 422,
      message: "folder: must be one of 'inbox', 'archive', 'spam', 'trash'",
    });

    // search: words of a body, the sender, attachments, with the matching message
    const receipt = ok(await stack.resend.inboxes.threads.search({ ...sel, query: 'RECEIPT order' }));
    expect(receipt.data.map((x) => x.id)).toEqual([main.id]);
    expect(receipt.data[0]!.matched_email_id).toBe(emails.data[3]!.id); // the newest message quoting it
    const fromEve = ok(await stack.resend.inboxes.threads.search({ ...sel, from: [stranger] }));
    expect(fromEve.data.map((x) => x.id)).toEqual([other.id]);
    const withFiles = ok(await stack.resend.inboxes.threads.search({ ...sel, hasAttachment: true }));
    expect(withFiles.data.map((x) => x.id)).toEqual([main.id]);
    expect(withFiles.data[0]!.matched_email_id).toBe(emails.data[2]!.id);
    const future = ok(
      await stack.resend.inboxes.threads.search({
        ...sel,
        query: 'order',
        startDate: '2999-01-01T00:00:00Z',
      }),
    );
    expect(future.data).toEqual([]);

    // removal: to the trash first, then for good
    expect(ok(await stack.resend.inboxes.threads.remove({ ...sel, threadId: other.id }))).toEqual({
      object: 'inbox_thread',
      id: other.id,
      deleted: false,
    });
    expect(ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: other.id })).folder).toBe('trash');
    expect(ok(await stack.resend.inboxes.threads.remove({ ...sel, threadId: other.id }))).toEqual({
      object: 'inbox_thread',
      id: other.id,
      deleted: true,
    });
    expect((await stack.resend.inboxes.threads.get({ ...sel, threadId: other.id })).error).toMatchObject({
      statusCode: 404,
    });

    // a new message in the archived thread brings it back to the inbox, unread
    await deliver(
      fixture('gmail-reply.eml', vars)
        .replace(`CAGmailReply+${t}`, `CAGmailReply2+${t}`)
        .replace('Any news?', 'Still waiting'),
      customer,
      address,
    );
    await waitUntil(
      async () =>
        ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: main.id })).folder === 'inbox',
      { timeoutMs: 20_000, message: 'the archived thread back in the inbox' },
    );

    const events = (await stack.teamEvents('inbox.')).filter((e) => e.data.inbox_id === inbox.id);
    const types = new Set(events.map((e) => e.type));
    for (const type of [
      'inbox.created',
      'inbox.thread.created',
      'inbox.email.received',
      'inbox.thread.labels.updated',
      'inbox.thread.folder.updated',
    ]) {
      expect(types, type).toContain(type);
    }
    const labelled = events.find((e) => e.type === 'inbox.thread.labels.updated')!;
    expect(labelled.data).toMatchObject({
      source: 'api',
      inbox_id: inbox.id,
      thread_id: main.id,
      added: [{ id: urgent.id, name: 'urgent', color: '#FF0000' }],
      removed: [],
    });
    const receivedEvent = events.find((e) => e.type === 'inbox.email.received')!;
    expect(receivedEvent.data).toMatchObject({
      source: 'system',
      email: { direction: 'inbound', from: customer },
    });
    expect(receivedEvent.data.email).not.toHaveProperty('html');
    // the SDK's InboxThreadFolderUpdatedEventData: `from` and `to`; archived by the API, back
    // in the inbox by the new mail
    const moves = events.filter(
      (e) => e.type === 'inbox.thread.folder.updated' && e.data.thread_id === main.id,
    );
    expect(moves.map((e) => e.data)).toEqual([
      expect.objectContaining({ source: 'api', from: 'inbox', to: 'archive', thread: expect.anything() }),
      expect.objectContaining({ source: 'system', from: 'archive', to: 'inbox' }),
    ]);
    expect(moves[0]!.data).not.toHaveProperty('previous_folder');
    expect(moves[0]!.data).not.toHaveProperty('folder');

    // the same events at a real endpoint, signed
    expect(await hook.signed('inbox.thread.created', main.id)).toMatchObject({
      inbox_id: inbox.id,
      thread_id: main.id,
      email: { direction: 'inbound', from: customer },
    });
    expect(await hook.signed('inbox.email.received', emails.data[1]!.id)).toMatchObject({
      inbox_id: inbox.id,
      thread_id: main.id,
      email_id: emails.data[1]!.id,
    });
    expect(
      await hook.signed('inbox.thread.labels.updated', main.id, `"added":[{"id":"${urgent.id}"`),
    ).toMatchObject({
      source: 'api',
      thread_id: main.id,
      added: [{ id: urgent.id, name: 'urgent', color: '#FF0000' }],
    });
    expect(await hook.signed('inbox.thread.folder.updated', main.id, '"to":"archive"')).toMatchObject({
      source: 'api',
      thread_id: main.id,
      from: 'inbox',
      to: 'archive',
    });
  });
}

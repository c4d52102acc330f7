import { describe, expect, it } from 'vitest';
import type { InboundEmailRecord, InboxThreadActivity } from '@petrel/contracts';
import { createInbox, fileReceivedEmail, newId, removeThread } from '@petrel/core';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { InboxesStore } from './inboxes.store.js';

const fx = useStoreRedis('inboxes');

let clockMs = Date.parse('2030-01-01T00:00:00.000Z');

function received(
  over: Partial<InboundEmailRecord> & { headers?: Record<string, string> },
): InboundEmailRecord {
  clockMs += 1000;
  return {
    id: newId(clockMs),
    created_at: new Date(clockMs).toISOString(),
    from: 'bob@client.example',
    to: ['support@in.test'],
    cc: [],
    bcc: [],
    reply_to: [],
    received_for: ['support@in.test'],
    subject: 'Order 7 is late',
    message_id: `<${newId()}@client.example>`,
    html: null,
    text: 'Where is my parcel?',
    headers: {},
    attachments: [],
    size: 100,
    ...over,
  };
}

/** An inbox of a new team; `domainId` '' is an operator's receiving domain, else the team's own. */
async function setup(opts: { address?: string; domainId?: string; teamId?: string } = {}) {
  const store = new InboxesStore(fx.redis, fx.keys);
  const teamId = opts.teamId ?? nextTeam();
  const address = opts.address ?? 'Support@in.test';
  const domain = address.slice(address.indexOf('@') + 1).toLowerCase();
  const inbox = await createInbox(
    { teamId, input: { email_address: address, name: 'Support' } },
    {
      inboxes: store,
      receiving: { of: () => Promise.resolve([{ domain, domainId: opts.domainId ?? '' }]) },
      clock: Date,
      ids: { newId: () => newId() },
    },
  );
  const file = (e: InboundEmailRecord) =>
    fileReceivedEmail({ teamId, email: e }, { inboxes: store, ids: { newId: () => newId() } });
  return { store, teamId, inbox, file };
}

/** An inbox with one received thread (`subject`) and a label (`name`, #E93D82). */
async function threadAndLabel(subject: string, name: string) {
  const ctx = await setup();
  const [r] = await ctx.file(received({ subject }));
  const label = { id: newId(), name, color: '#E93D82', created_at: new Date().toISOString() };
  await ctx.store.createLabel(ctx.teamId, ctx.inbox.id, label);
  return { ...ctx, threadId: r!.threadId, label };
}

describe('InboxesStore', () => {
  it('threads a conversation by references and by subject, and keeps strangers apart', async () => {
    const { store, teamId, inbox, file } = await setup();
    const first = received({});
    const [a] = await file(first);
    expect(a).toMatchObject({ inboxId: inbox.id, created: true });
    // a reply that names the first message
    const [b] = await file(
      received({
        subject: 'RE: Order 7 is late',
        headers: { 'in-reply-to': first.message_id, references: first.message_id },
      }),
    );
    expect(b).toEqual({ inboxId: inbox.id, threadId: a!.threadId, created: false });
    // a reply whose client dropped the headers: same correspondent, localized prefix
    const [c] = await file(received({ subject: 'AW: Order 7 is late', message_id: '' }));
    expect(c!.threadId).toBe(a!.threadId);
    // someone else with the same subject: a thread of their own
    const [d] = await file(received({ from: 'eve@other.example', subject: 'Re: Order 7 is late' }));
    expect(d!.threadId).not.toBe(a!.threadId);
    // the same Message-ID again joins the thread it names
    const [e] = await file(received({ message_id: first.message_id, subject: 'whatever' }));
    expect(e!.threadId).toBe(a!.threadId);

    const thread = await store.thread(teamId, inbox.id, a!.threadId);
    expect(thread).toMatchObject({
      email_count: 4,
      folder: 'inbox',
      read: false,
      subject: 'Order 7 is late',
    });
    const msgs = await store.messages(teamId, inbox.id, a!.threadId, { limit: 10 });
    expect(msgs!.items).toHaveLength(4);
    expect(await store.counts(teamId, inbox.id)).toMatchObject({ unread: 2 });
    const types = (await fx.events(teamId)).map((ev) => ev.type);
    expect(types.filter((t) => t === 'inbox.thread.created')).toHaveLength(2);
    expect(types.filter((t) => t === 'inbox.email.received')).toHaveLength(5);
  });

  it('lists by folder, read and label with cursors; search finds words and senders with matched_email_id', async () => {
    const { store, teamId, inbox, file } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [r] = await file(
        received({ subject: `Ticket ${i}`, text: i === 2 ? 'the blue widget broke' : 'hello' }),
      );
      ids.push(r!.threadId);
    }
    await store.updateThread(teamId, inbox.id, ids[0]!, { folder: 'archive', read: true }, 'api');
    const label = { id: newId(), name: 'vip', color: '#112233', created_at: new Date().toISOString() };
    await store.createLabel(teamId, inbox.id, label);
    await store.setThreadLabels(teamId, inbox.id, ids[3]!, [label.id], 'api');

    const inboxFolder = await store.threads(teamId, inbox.id, { limit: 2, folders: ['inbox'] });
    expect(inboxFolder!.items.map((t) => t.id)).toEqual([ids[4], ids[3]]);
    expect(inboxFolder!.hasMore).toBe(true);
    const next = await store.threads(teamId, inbox.id, { limit: 2, folders: ['inbox'], after: ids[3] });
    expect(next!.items.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    expect(
      (await store.threads(teamId, inbox.id, { limit: 10, read: true }))!.items.map((t) => t.id),
    ).toEqual([ids[0]]);
    expect(
      (await store.threads(teamId, inbox.id, {
        limit: 10,
        labels: [label.id],
        folders: ['inbox', 'archive'],
      }))!.items.map((t) => t.id),
    ).toEqual([ids[3]]);

    const hit = await store.search(teamId, inbox.id, {
      limit: 10,
      words: ['blue', 'widget'],
      from: [],
      to: [],
      cc: [],
      bcc: [],
    });
    expect(hit!.items.map((t) => t.id)).toEqual([ids[2]]);
    expect(hit!.items[0]!.matched_email_id).toEqual(expect.any(String));
    const none = await store.search(teamId, inbox.id, {
      limit: 10,
      words: ['blue'],
      from: ['someone@else.example'],
      to: [],
      cc: [],
      bcc: [],
    });
    expect(none!.items).toEqual([]);
  });

  it('label and unread listings page filtered threads and follow every thread write', async () => {
    const { store, teamId, inbox, file } = await setup();
    const mails = Array.from({ length: 6 }, (_, i) => received({ subject: `Case ${i}` }));
    const t: string[] = [];
    for (const m of mails) t.push((await file(m))[0]!.threadId);
    const label = { id: newId(), name: 'vip', color: '#112233', created_at: new Date().toISOString() };
    await store.createLabel(teamId, inbox.id, label);
    for (const i of [1, 3, 4]) await store.setThreadLabels(teamId, inbox.id, t[i]!, [label.id], 'api');
    for (const i of [0, 2, 4]) await store.updateThread(teamId, inbox.id, t[i]!, { read: true }, 'api');
    const list = async (q: {
      labels?: string[];
      read?: boolean;
      limit: number;
      after?: string;
      before?: string;
    }) => {
      const p = await store.threads(teamId, inbox.id, q);
      return p && { ids: p.items.map((x) => t.indexOf(x.id)), hasMore: p.hasMore };
    };
    const vip = [label.id];

    expect(await list({ labels: vip, limit: 1 })).toEqual({ ids: [4], hasMore: true });
    expect(await list({ labels: vip, limit: 1, after: t[4] })).toEqual({ ids: [3], hasMore: true });
    expect(await list({ labels: vip, limit: 1, after: t[3] })).toEqual({ ids: [1], hasMore: false });
    expect(await list({ labels: vip, limit: 1, before: t[1] })).toEqual({ ids: [3], hasMore: true });
    expect(await list({ labels: vip, limit: 5, before: t[3] })).toEqual({ ids: [4], hasMore: false });
    expect(await list({ read: false, limit: 10 })).toEqual({ ids: [5, 3, 1], hasMore: false });
    expect(await list({ labels: vip, read: false, limit: 10 })).toEqual({ ids: [3, 1], hasMore: false });
    expect(await list({ labels: vip, read: true, limit: 10 })).toEqual({ ids: [4], hasMore: false });
    expect((await store.counts(teamId, inbox.id)).unread).toBe(3);

    // a label taken off leaves the label's listing; a new message moves the thread up in it
    await store.setThreadLabels(teamId, inbox.id, t[3]!, [], 'api');
    await file(received({ subject: 'Re: Case 1', headers: { 'in-reply-to': mails[1]!.message_id } }));
    expect(await list({ labels: vip, limit: 10 })).toEqual({ ids: [1, 4], hasMore: false });
    // a deleted thread leaves the unread listing; a deleted label's listing goes with it
    await store.deleteThread(teamId, inbox.id, t[5]!);
    expect(await list({ read: false, limit: 10 })).toEqual({ ids: [1, 3], hasMore: false });
    expect(await store.removeLabel(teamId, inbox.id, label.id)).toBe(true);
    expect(await fx.redis.exists(fx.keys.inboxPart(teamId, inbox.id, `label:${label.id}`))).toBe(0);
    expect(await list({ labels: vip, limit: 1, after: '0190b7c2-5a3e-7d41-9f2a-000000000000' })).toBeNull();
  });

  it('search pages threads by their newest matching message: after, before and a date range', async () => {
    const { store, teamId, inbox, file } = await setup();
    const a1 = received({ subject: 'Fruit A', text: 'apple banana' });
    const b1 = received({ subject: 'Fruit B', text: 'apple banana' });
    const c1 = received({ subject: 'Fruit C', text: 'apple only' });
    const a2 = received({
      subject: 'Re: Fruit A',
      text: 'apple banana again',
      headers: { 'in-reply-to': a1.message_id },
    });
    const d1 = received({ subject: 'Fruit D', text: 'banana apple' });
    const b2 = received({
      subject: 'Re: Fruit B',
      text: 'nothing here',
      headers: { 'in-reply-to': b1.message_id },
    });
    const thread: Record<string, string> = {};
    for (const [name, e] of [
      ['a', a1],
      ['b', b1],
      ['c', c1],
      ['a', a2],
      ['d', d1],
      ['b', b2],
    ] as const) {
      const [r] = await file(e);
      expect(thread[name] ?? r!.threadId).toBe(r!.threadId);
      thread[name] = r!.threadId;
    }
    const search = (over: {
      words: string[];
      limit: number;
      after?: string;
      before?: string;
      endMs?: number;
    }) => store.search(teamId, inbox.id, { from: [], to: [], cc: [], bcc: [], ...over });
    const both = ['apple', 'banana'];
    const seen = (p: Awaited<ReturnType<typeof search>>) =>
      p && { ids: p.items.map((t) => [t.id, t.matched_email_id]), hasMore: p.hasMore };

    // each thread once, at its newest message with both words (b2 has neither: b stays at b1)
    expect(seen(await search({ words: both, limit: 10 }))).toEqual({
      ids: [
        [thread.d, d1.id],
        [thread.a, a2.id],
        [thread.b, b1.id],
      ],
      hasMore: false,
    });
    // page by page, both ways: [page, its one thread (and matched message), hasMore]
    const pages: [{ limit: number; after?: string; before?: string }, (string | undefined)[], boolean][] = [
      [{ limit: 1 }, [thread.d, d1.id], true],
      [{ limit: 1, after: thread.d }, [thread.a, a2.id], true],
      [{ limit: 1, after: thread.a }, [thread.b, b1.id], false],
      [{ limit: 1, before: thread.b }, [thread.a, a2.id], true],
      [{ limit: 5, before: thread.a }, [thread.d, d1.id], false],
    ];
    for (const [page, hit, hasMore] of pages)
      expect(seen(await search({ words: both, ...page })), JSON.stringify(page)).toEqual({
        ids: [hit],
        hasMore,
      });
    // one word: the thread without the other word too
    expect(seen(await search({ words: ['apple'], limit: 10 }))!.ids.map(([t]) => t)).toEqual([
      thread.d,
      thread.a,
      thread.c,
      thread.b,
    ]);
    // up to c1's time: a is placed at a1 (a2 is later), after b
    expect(seen(await search({ words: both, limit: 10, endMs: Date.parse(c1.created_at) }))).toEqual({
      ids: [
        [thread.b, b1.id],
        [thread.a, a1.id],
      ],
      hasMore: false,
    });
    // a cursor thread without a match is no place in the listing
    expect(await search({ words: both, limit: 1, after: thread.c })).toBeNull();
  });

  it('inboxRoute: an inbox at its team’s own domain routes to the team; one at a receiving domain, a stale or a removed entry does not', async () => {
    const own = await setup({ address: 'Help@Own-Domain.test', domainId: 'dom-own' });
    expect(own.inbox.email_address).toBe('help@own-domain.test');
    expect(await own.store.inboxRoute('help@own-domain.test')).toEqual({
      teamId: own.teamId,
      domainId: 'dom-own',
    });
    expect(await own.store.inboxRoute('nobody@own-domain.test')).toBeNull();
    // an inbox at an operator's receiving domain (INBOUND_DOMAINS) is found by the domain's own
    // rule, not this index
    const operator = await setup({ address: 'desk@in.test' });
    expect(await operator.store.inboxRoute(operator.inbox.email_address)).toBeNull();
    // an entry whose inbox was never written (a create that stopped after the index) is ignored
    await fx.redis.hset(fx.keys.inboxRoutes(), 'ghost@own-domain.test', own.teamId);
    expect(await own.store.inboxRoute('ghost@own-domain.test')).toBeNull();
    // another team's inbox at the same address takes the route; removing the first team's
    // inbox then leaves the second team's entry alone
    const other = await setup({ address: 'help@own-domain.test', domainId: 'dom-other' });
    expect(await own.store.inboxRoute('help@own-domain.test')).toEqual({
      teamId: other.teamId,
      domainId: 'dom-other',
    });
    expect(await own.store.remove(own.teamId, own.inbox.id)).not.toBeNull();
    expect(await own.store.inboxRoute('help@own-domain.test')).toEqual({
      teamId: other.teamId,
      domainId: 'dom-other',
    });
    expect(await other.store.remove(other.teamId, other.inbox.id)).not.toBeNull();
    expect(await own.store.inboxRoute('help@own-domain.test')).toBeNull();
    expect(await fx.redis.hexists(fx.keys.inboxRoutes(), 'help@own-domain.test')).toBe(0);
  });

  it('changeThread writes folder, read, labels and assignee with their events and activity in one step', async () => {
    const { store, teamId, inbox, threadId, label } = await threadAndLabel('Refund please', 'refund');
    const at = new Date(clockMs).toISOString();
    const act = (action: string, detail: Record<string, unknown>): InboxThreadActivity => ({
      at,
      source: 'agent',
      action,
      email_id: threadId,
      detail,
    });
    const before = (await fx.events(teamId)).length;

    const done = await store.changeThread(
      teamId,
      inbox.id,
      threadId.toUpperCase(),
      { folder: 'archive', read: true, label_ids: [label.id], assignee: 'ana@acme.test' },
      'agent',
      [act('add_labels', { label_ids: [label.id] }), act('archive', { folder: 'archive' })],
    );
    expect(done!.before).toMatchObject({ folder: 'inbox', read: false, label_ids: [], assignee: null });
    expect(done!.after).toMatchObject({
      folder: 'archive',
      read: true,
      label_ids: [label.id],
      assignee: 'ana@acme.test',
    });
    expect(await store.thread(teamId, inbox.id, threadId)).toEqual(done!.after);
    // the thread's messages follow its read state; its listings follow its folder and labels
    const msgs = await store.messages(teamId, inbox.id, threadId, { limit: 10 });
    expect(msgs!.items.map((m) => m.read)).toEqual([true]);
    const archived = await store.threads(teamId, inbox.id, { folders: ['archive'], limit: 10 });
    expect(archived!.items.map((t) => t.id)).toEqual([threadId]);
    const byLabel = await store.threads(teamId, inbox.id, { labels: [label.id], limit: 10 });
    expect(byLabel!.items.map((t) => t.id)).toEqual([threadId]);
    expect((await store.counts(teamId, inbox.id)).unread).toBe(0);

    const written = (await fx.events(teamId)).slice(before);
    expect(written.map((e) => e.type)).toEqual([
      'inbox.thread.assigned',
      'inbox.thread.folder.updated',
      'inbox.thread.labels.updated',
    ]);
    const summary = {
      object: 'inbox_thread',
      id: threadId,
      subject: 'Refund please',
      folder: 'archive',
      labels: [{ id: label.id, name: 'refund', color: '#E93D82' }],
      read: true,
    };
    expect(written.map((e) => e.data)).toEqual([
      {
        source: 'agent',
        inbox_id: inbox.id,
        thread_id: threadId,
        thread: summary,
        assignee_email: 'ana@acme.test',
        assigned_by_email: null,
        previous_assignee_email: null,
      },
      {
        source: 'agent',
        inbox_id: inbox.id,
        thread_id: threadId,
        thread: summary,
        from: 'inbox',
        to: 'archive',
      },
      {
        source: 'agent',
        inbox_id: inbox.id,
        thread_id: threadId,
        thread: summary,
        added: [{ id: label.id, name: 'refund', color: '#E93D82' }],
        removed: [],
      },
    ]);
    expect(await store.activity(teamId, inbox.id, threadId)).toEqual([
      act('add_labels', { label_ids: [label.id] }),
      act('archive', { folder: 'archive' }),
    ]);

    // unassigning: its own event, naming who it was; the activity grows at its end
    const n = (await fx.events(teamId)).length;
    await store.changeThread(teamId, inbox.id, threadId, { assignee: null }, 'api', [
      act('assign_thread', { assignee: null }),
    ]);
    const [unassigned, ...rest] = (await fx.events(teamId)).slice(n);
    expect(rest).toEqual([]);
    expect(unassigned).toMatchObject({
      type: 'inbox.thread.unassigned',
      data: { source: 'api', previous_assignee_email: 'ana@acme.test' },
    });
    expect(unassigned!.data).not.toHaveProperty('assignee_email');
    expect((await store.activity(teamId, inbox.id, threadId)).map((a) => a.action)).toEqual([
      'add_labels',
      'archive',
      'assign_thread',
    ]);

    // a change that changes nothing publishes nothing; a thread that is not there is null
    const m = (await fx.events(teamId)).length;
    expect(await store.changeThread(teamId, inbox.id, threadId, { folder: 'archive' }, 'api')).not.toBeNull();
    expect(await fx.events(teamId)).toHaveLength(m);
    expect(await store.changeThread(teamId, inbox.id, newId(), { folder: 'spam' }, 'api')).toBeNull();
    expect(await store.changeThread(teamId, inbox.id, 'not-a-uuid', { folder: 'spam' }, 'api')).toBeNull();
  });

  it('changeThread: concurrent changes of one thread all land, each with its event and activity once (compare-and-set, retried)', async () => {
    const { store, teamId, inbox, threadId, label } = await threadAndLabel('Busy thread', 'busy');
    const before = (await fx.events(teamId)).length;
    const changes = [
      { folder: 'spam' as const },
      { assignee: 'ana@acme.test' },
      { label_ids: [label.id] },
      { read: true },
    ];
    await Promise.all(
      changes.map((change, i) =>
        store.changeThread(teamId, inbox.id, threadId, change, 'api', [
          {
            at: new Date().toISOString(),
            source: 'api',
            action: `change${i}`,
            email_id: null,
            detail: change,
          },
        ]),
      ),
    );
    expect(await store.thread(teamId, inbox.id, threadId)).toMatchObject({
      folder: 'spam',
      assignee: 'ana@acme.test',
      label_ids: [label.id],
      read: true,
    });
    const actions = (await store.activity(teamId, inbox.id, threadId)).map((a) => a.action);
    expect(actions.sort()).toEqual(['change0', 'change1', 'change2', 'change3']);
    const types = (await fx.events(teamId)).slice(before).map((e) => e.type);
    expect(types.sort()).toEqual([
      'inbox.thread.assigned',
      'inbox.thread.folder.updated',
      'inbox.thread.labels.updated',
    ]);
  });

  it('activity: empty for a thread without changes or an id that is none; keeps the newest 200', async () => {
    const { store, teamId, inbox, file } = await setup();
    const [r] = await file(received({}));
    const threadId = r!.threadId;
    expect(await store.activity(teamId, inbox.id, threadId)).toEqual([]);
    expect(await store.activity(teamId, inbox.id, 'x'.repeat(36))).toEqual([]);
    expect(await store.activity(teamId, inbox.id, newId())).toEqual([]);
    const entry = (i: number): InboxThreadActivity => ({
      at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
      source: 'api',
      action: 'mark',
      email_id: null,
      detail: { i },
    });
    await store.changeThread(
      teamId,
      inbox.id,
      threadId,
      { read: true },
      'api',
      Array.from({ length: 150 }, (_, i) => entry(i)),
    );
    await store.changeThread(
      teamId,
      inbox.id,
      threadId,
      { read: false },
      'api',
      Array.from({ length: 60 }, (_, i) => entry(150 + i)),
    );
    const kept = await store.activity(teamId, inbox.id, threadId.toUpperCase());
    expect(kept).toHaveLength(200);
    expect(kept[0]).toEqual(entry(10));
    expect(kept.at(-1)).toEqual(entry(209));
  });

  it('removing a thread moves it to the trash, then deletes it with its indexes', async () => {
    const { store, teamId, inbox, file } = await setup();
    const first = received({ text: 'unique-word-zebra' });
    const [r] = await file(first);
    const ports = { inboxes: store };
    await expect(removeThread({ teamId, inbox, threadId: r!.threadId }, ports)).resolves.toEqual({
      id: r!.threadId,
      deleted: false,
    });
    expect(await store.thread(teamId, inbox.id, r!.threadId)).toMatchObject({ folder: 'trash' });
    await expect(removeThread({ teamId, inbox, threadId: r!.threadId }, ports)).resolves.toEqual({
      id: r!.threadId,
      deleted: true,
    });
    expect(await store.thread(teamId, inbox.id, r!.threadId)).toBeNull();
    const search = await store.search(teamId, inbox.id, {
      limit: 5,
      words: ['unique-word-zebra'],
      from: [],
      to: [],
      cc: [],
      bcc: [],
    });
    expect(search!.items).toEqual([]);
    // a reply to the deleted message starts a new thread (the stale index entry is not trusted)
    const [again] = await file(received({ headers: { 'in-reply-to': first.message_id } }));
    expect(again!.created).toBe(true);
  });
});

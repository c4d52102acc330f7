/**
 * The inbox agent end to end: mail sent over SMTP into an inbox whose agent has actions, a
 * local HTTP server speaking the chat-completions shape as the operator's model (its answer
 * scripted per message by a `key:` word in the message's text), and the SDK reading what came
 * of it — each allowed action applied, recorded on the thread and published with
 * `source: "agent"`; every forbidden answer refused with nothing changed; and a stack without
 * an endpoint queueing nothing and saying so.
 */
import { Queue } from 'bullmq';
import type { InboxAgentAction, InboxAgentTone } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_AGENT_QUEUE, inboxAgentJobId, type TeamEvent } from '@petrel/contracts';
import { InboxesStore, Keys, createRedis, type RedisClient } from '@petrel/store';
import { startHttpReceiver, waitUntil, type HttpReceiver, type RecordedRequest } from '@petrel/testing';
import { ok, startStack, type Stack } from './helpers.js';
import { mta } from './scenarios/inbound.js';
import { inboxHook, type InboxHook } from './scenarios/inboxes-support.js';

const DOMAIN = 'in.e2e.test'; // the default team's receiving domain (helpers.ts)
const MODEL_PATH = '/v1/chat/completions';

let stack: Stack; // with the model endpoint
let bare: Stack; // without one
let model: HttpReceiver;
let redis: RedisClient;
/** A real endpoint for the events only the agent causes (assignments), checked signed. */
let hook: InboxHook;
/** Scripted answers: the `key:<k>` word of the newest message's text → the model's content. */
const answers = new Map<string, string>();

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
}

/** The thread document of a recorded request (the user message). */
function threadOf(req: RecordedRequest): { emails: { id: string; text: string | null }[] } {
  const body = JSON.parse(req.body) as { messages: { role: string; content: string }[] };
  return JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as {
    emails: { id: string; text: string | null }[];
  };
}

beforeAll(async () => {
  model = await startHttpReceiver({
    respond: (req) => {
      const newest = threadOf(req).emails.at(-1)?.text ?? '';
      const key = /key:(\S+)/.exec(newest)?.[1] ?? '';
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: completion(answers.get(key) ?? '{"actions":[]}'),
      };
    },
  });
  [stack, bare] = await Promise.all([
    startStack({
      env: {
        INBOX_AGENT_URL: `${model.url}${MODEL_PATH}`,
        INBOX_AGENT_MODEL: 'test-model',
        INBOX_AGENT_API_KEY: 'sk-test-agent',
        // the agent's forwards leave from the inbox's address at the receiving domain, which no
        // DNS here verifies (inbox-replies.e2e.test.ts covers a verified domain's DKIM)
        ENFORCE_VERIFIED_DOMAINS: 'false',
      },
    }),
    startStack(),
  ]);
  redis = createRedis(stack.redis.url);
  hook = await inboxHook(stack, ['inbox.thread.assigned', 'inbox.thread.unassigned']);
});
afterAll(async () => {
  await hook?.stop();
  await redis?.quit();
  await Promise.all([stack?.stop(), bare?.stop()]);
  await model?.stop();
});

let n = 0;
const tag = () => `${++n}x${Date.now()}`;

/** Sends a plain message to `to` over SMTP; its Message-ID. */
async function send(
  on: Stack,
  m: { from: string; to: string; subject: string; text: string; inReplyTo?: string },
): Promise<string> {
  const messageId = `<${tag()}@mail.example>`;
  const info = await mta(on.smtpPorts.inbound!).sendMail({
    from: m.from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    messageId,
    ...(m.inReplyTo && { inReplyTo: m.inReplyTo, references: [m.inReplyTo] }),
  });
  expect(info.response).toMatch(/^250 /);
  return messageId;
}

/** The value of `petrel_inbox_agent_answers_total{outcome}` (0 when absent). */
async function answered(outcome: string): Promise<number> {
  const text = await (await fetch(stack.metricsUrl)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('petrel_inbox_agent_answers_total{') && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function agentEvents(on: Stack, threadId: string): Promise<TeamEvent[]> {
  return (await on.teamEvents('inbox.')).filter(
    (e): e is TeamEvent =>
      (e.data as { source?: string; thread_id?: string }).source === 'agent' &&
      (e.data as { thread_id?: string }).thread_id === threadId,
  );
}

/** The only thread of an inbox, once a message is in it. */
async function onlyThread(on: Stack, inboxId: string) {
  return waitUntil(async () => ok(await on.resend.inboxes.threads.list({ inboxId })).data[0], {
    timeoutMs: 10_000,
    message: 'the message filed into the inbox',
  });
}

/** What a test sets an inbox's agent to (the SDK's agent.update without its inbox selector). */
interface AgentSettings {
  instructions: string;
  actions: InboxAgentAction[];
  tone?: InboxAgentTone;
}

/** A new inbox `<name>.<t>@DOMAIN` of `on` whose agent has the settings `agent(t)` gives. */
async function agentInbox(on: Stack, name: string, agent: (t: string) => AgentSettings, fromName?: string) {
  const t = tag();
  const address = `${name}.${t}@${DOMAIN}`;
  const inbox = ok(await on.resend.inboxes.create({ emailAddress: address, ...(fromName && { fromName }) }));
  const sel = { inboxId: inbox.id };
  ok(await on.resend.inboxes.agent.update({ ...sel, ...agent(t) }));
  return { t, address, inbox, sel };
}

/**
 * An inbox whose agent may forward `what` to billing.<t>@acme.test and archive, and the model's
 * answer for a message with `key:<key>`: forward there with a note, then archive.
 */
async function forwardingInbox(name: string, what: string) {
  const { t, address, inbox, sel } = await agentInbox(
    stack,
    name,
    (t) => ({
      instructions: `Forward ${what} to billing.${t}@acme.test.`,
      actions: ['forward_thread', 'archive'],
    }),
    'Acme Inbox',
  );
  const billing = `billing.${t}@acme.test`;
  const key = `${name}.${t}`;
  answers.set(
    key,
    JSON.stringify({
      actions: [{ type: 'forward_thread', to: [billing], note: 'Please handle this.' }, { type: 'archive' }],
    }),
  );
  return { t, address, billing, inbox, sel, key };
}

describe('the inbox agent', () => {
  it('applies each action the inbox allows, records it on the thread and publishes it as the agent', async () => {
    const t = tag();
    const address = `support.${t}@${DOMAIN}`;
    const customer = `ada.${t}@example.org`;
    const instructions = `Label refund requests "Refund" and assign them to ana@acme.test. Forward invoices to billing.${t}@acme.test.`;
    const inbox = ok(await stack.resend.inboxes.create({ emailAddress: address }));
    const sel = { inboxId: inbox.id };
    const refund = ok(await stack.resend.inboxes.labels.create({ ...sel, name: 'Refund' }));
    ok(
      await stack.resend.inboxes.agent.update({
        ...sel,
        instructions,
        tone: 'concise_professional',
        actions: ['draft_reply', 'add_labels', 'archive', 'assign_thread', 'mark_as_spam', 'move_to_trash'],
      }),
    );
    const agentGet = await stack.http(`/inboxes/${inbox.id}/agent`);
    expect(agentGet.headers.get('petrel-agent-runner')).toBe('on');

    // a reply draft, labels, archive and an assignee from one answer
    answers.set(
      `apply1.${t}`,
      JSON.stringify({
        actions: [
          { type: 'add_labels', labels: ['refund'] },
          { type: 'archive' },
          { type: 'assign_thread', assignee: 'Ana@Acme.test' },
          { type: 'draft_reply', text: `Hello Ada, your refund for order ${t} is on its way.` },
        ],
      }),
    );
    const before = model.requests.length;
    const first = await send(stack, {
      from: customer,
      to: address,
      subject: `Refund for order ${t}`,
      text: `Please refund order ${t}. key:apply1.${t}`,
    });
    const thread = await onlyThread(stack, inbox.id);
    await waitUntil(
      async () =>
        ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: thread.id })).folder === 'archive',
      { timeoutMs: 20_000, message: 'the agent archived the thread' },
    );
    const summary = ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: thread.id }));
    expect(summary).toMatchObject({
      folder: 'archive',
      labels: [{ id: refund.id, name: 'Refund', color: '#E93D82' }],
    });

    // what the model was sent: the operator's settings, the allowed actions, the thread as data
    const request = model.requests
      .slice(before)
      .find((r) => threadOf(r).emails.some((e) => e.text?.includes(`apply1.${t}`)))!;
    expect(request.path).toBe(MODEL_PATH);
    expect(request.headers.authorization).toBe('Bearer sk-test-agent');
    const body = JSON.parse(request.body) as {
      model: string;
      response_format: unknown;
      messages: { role: string; content: string }[];
    };
    expect(body.model).toBe('test-model');
    expect(body.response_format).toEqual({ type: 'json_object' });
    const system = body.messages.find((m) => m.role === 'system')!.content;
    expect(system).toContain(instructions);
    expect(system).toContain('concise and professional');
    expect(system).toContain('"type":"mark_as_spam"');
    expect(system).toContain('"type":"draft_reply"');
    expect(system).not.toContain('"type":"forward_thread"');
    expect(system).toContain(`"name":"Refund"`);
    expect(threadOf(request).emails).toEqual([
      expect.objectContaining({ text: expect.stringContaining(`Please refund order ${t}`) }),
    ]);

    // the events, as the SDK's webhook types define them, with source "agent"
    const events = await waitUntil(
      async () => {
        const e = await agentEvents(stack, thread.id);
        return e.length >= 4 ? e : undefined;
      },
      { timeoutMs: 10_000, message: 'four agent events' },
    );
    expect(events.map((e) => e.type).sort()).toEqual([
      'inbox.draft.created',
      'inbox.thread.assigned',
      'inbox.thread.folder.updated',
      'inbox.thread.labels.updated',
    ]);
    expect(events.find((e) => e.type === 'inbox.thread.assigned')!.data).toMatchObject({
      source: 'agent',
      inbox_id: inbox.id,
      thread_id: thread.id,
      assignee_email: 'ana@acme.test',
      assigned_by_email: null,
      previous_assignee_email: null,
    });
    expect(await hook.signed('inbox.thread.assigned', thread.id)).toMatchObject({
      source: 'agent',
      inbox_id: inbox.id,
      thread_id: thread.id,
      assignee_email: 'ana@acme.test',
    });
    expect(events.find((e) => e.type === 'inbox.thread.labels.updated')!.data).toMatchObject({
      added: [{ id: refund.id, name: 'Refund', color: '#E93D82' }],
      removed: [],
    });

    // recorded on the thread: one activity entry per action, for the message that caused it
    const teamId = events[0]!.teamId;
    const store = new InboxesStore(redis, new Keys(stack.prefix));
    const emails = ok(await stack.resend.inboxes.threads.emails.list({ ...sel, threadId: thread.id })).data;
    // the draft: a reply to the message, never sent (the agent sends nothing by itself)
    const drafts = ok(await stack.resend.inboxes.drafts.list(sel)).data;
    expect(drafts).toEqual([
      expect.objectContaining({
        type: 'reply',
        thread_id: thread.id,
        reply_to_email_id: emails[0]!.id,
        snippet: expect.stringContaining(`your refund for order ${t}`),
      }),
    ]);
    expect(events.find((e) => e.type === 'inbox.draft.created')!.data).toMatchObject({
      source: 'agent',
      draft_id: drafts[0]!.id,
    });
    expect(stack.sink.messages.filter((m) => m.raw.includes(`order ${t} is on its way`))).toEqual([]);
    expect(await store.activity(teamId, inbox.id, thread.id)).toEqual([
      expect.objectContaining({
        source: 'agent',
        action: 'draft_reply',
        email_id: emails[0]!.id,
        detail: { draft_id: drafts[0]!.id },
      }),
      expect.objectContaining({
        source: 'agent',
        action: 'add_labels',
        email_id: emails[0]!.id,
        detail: { label_ids: [refund.id] },
      }),
      expect.objectContaining({
        source: 'agent',
        action: 'archive',
        email_id: emails[0]!.id,
        detail: { folder: 'archive' },
      }),
      expect.objectContaining({
        source: 'agent',
        action: 'assign_thread',
        email_id: emails[0]!.id,
        detail: { assignee: 'ana@acme.test' },
      }),
    ]);

    // the next message of the thread runs the agent again: unassign, then spam
    answers.set(
      `apply2.${t}`,
      JSON.stringify({ actions: [{ type: 'assign_thread', assignee: null }, { type: 'mark_as_spam' }] }),
    );
    await send(stack, {
      from: customer,
      to: address,
      subject: `Re: Refund for order ${t}`,
      text: `Any news? key:apply2.${t}`,
      inReplyTo: first,
    });
    await waitUntil(
      async () =>
        ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: thread.id })).folder === 'spam',
      { timeoutMs: 20_000, message: 'the agent moved the thread to spam' },
    );
    const unassigned = await waitUntil(
      async () => (await agentEvents(stack, thread.id)).find((e) => e.type === 'inbox.thread.unassigned'),
      { timeoutMs: 10_000, message: 'inbox.thread.unassigned' },
    );
    expect(unassigned.data).toMatchObject({ source: 'agent', previous_assignee_email: 'ana@acme.test' });
    expect(unassigned.data).not.toHaveProperty('assignee_email');
    expect(await hook.signed('inbox.thread.unassigned', thread.id)).toMatchObject({
      source: 'agent',
      thread_id: thread.id,
      previous_assignee_email: 'ana@acme.test',
    });
    const activity = await store.activity(teamId, inbox.id, thread.id);
    expect(activity.map((a) => a.action)).toEqual([
      'draft_reply',
      'add_labels',
      'archive',
      'assign_thread',
      'assign_thread',
      'mark_as_spam',
    ]);
    expect(activity.at(-1)).toMatchObject({ detail: { folder: 'spam' } });

    // trash, in a thread of its own
    answers.set(`apply3.${t}`, '{"actions":[{"type":"move_to_trash"}]}');
    await send(stack, { from: customer, to: address, subject: `Unsubscribe ${t}`, text: `key:apply3.${t}` });
    await waitUntil(
      async () => {
        const trash = ok(await stack.resend.inboxes.threads.list({ ...sel, folders: ['trash'] })).data;
        return trash.some((x) => x.subject === `Unsubscribe ${t}`);
      },
      { timeoutMs: 20_000, message: 'the agent moved the new thread to the trash' },
    );
  });

  it('forwards the message with its attachment to an address the instructions name, once, through the accept path', async () => {
    const { t, address, billing, inbox, sel, key } = await forwardingInbox('invoices', 'invoices');
    const pdf = Buffer.from(`%PDF-1.4 invoice ${t}`);
    const info = await mta(stack.smtpPorts.inbound!).sendMail({
      from: `vendor.${t}@example.org`,
      to: address,
      subject: `Invoice ${t}`,
      messageId: `<invoice.${t}@example.org>`,
      text: `Our invoice is attached. key:${key}`,
      attachments: [{ filename: 'invoice.pdf', content: pdf, contentType: 'application/pdf' }],
    });
    expect(info.response).toMatch(/^250 /);

    const m = await waitUntil(
      () => stack.sink.messages.find((x) => x.parsed.subject === `Fwd: Invoice ${t}`),
      {
        timeoutMs: 30_000,
        message: 'the forward at the SMTP sink',
      },
    );
    expect(m.envelope.to).toEqual([billing]);
    expect(m.parsed.from).toMatchObject({ name: 'Acme Inbox', address });
    expect(m.parsed.inReplyTo).toBe(`<invoice.${t}@example.org>`);
    expect(m.parsed.text).toContain('Please handle this.');
    expect(m.parsed.text).toContain('---------- Forwarded message ---------');
    expect(m.parsed.text).toContain('Our invoice is attached.');
    expect(
      m.parsed.attachments.map((a) => [
        a.filename,
        a.mimeType,
        Buffer.from(a.content as ArrayBuffer).toString(),
      ]),
    ).toEqual([['invoice.pdf', 'application/pdf', pdf.toString()]]);

    // recorded with the forward's email id, and the forward joins the thread as sent by the agent
    const thread = await onlyThread(stack, inbox.id);
    await waitUntil(
      async () =>
        ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: thread.id })).folder === 'archive',
      { timeoutMs: 20_000, message: 'the agent archived the thread' },
    );
    const emails = ok(await stack.resend.inboxes.threads.emails.list({ ...sel, threadId: thread.id })).data;
    expect(emails.map((e) => e.direction)).toEqual(['inbound', 'outbound']);
    const forwardId = emails[1]!.id;
    const events = await agentEvents(stack, thread.id);
    expect(events.find((e) => e.type === 'inbox.email.sent')?.data).toMatchObject({
      source: 'agent',
      email_id: forwardId,
      email: { direction: 'outbound', to: [billing] },
    });
    const teamId = events[0]!.teamId;
    const activity = await new InboxesStore(redis, new Keys(stack.prefix)).activity(
      teamId,
      inbox.id,
      thread.id,
    );
    expect(activity).toEqual([
      expect.objectContaining({
        source: 'agent',
        action: 'forward_thread',
        email_id: emails[0]!.id,
        detail: { to: [billing], email_id: forwardId },
      }),
      expect.objectContaining({ action: 'archive', detail: { folder: 'archive' } }),
    ]);
    // one forward: the run is done once its activity is written
    expect(stack.sink.messages.filter((x) => x.parsed.subject === `Fwd: Invoice ${t}`)).toHaveLength(1);
  });

  it('a forward its own rules refuse (more than 10 files) fails the run once, for good, and changes nothing', async () => {
    const { t, address, inbox, sel, key } = await forwardingInbox('bulk', 'scans');
    const calls = model.requests.length;
    await mta(stack.smtpPorts.inbound!).sendMail({
      from: `scanner.${t}@example.org`,
      to: address,
      subject: `Scans ${t}`,
      text: `Eleven pages. key:${key}`,
      attachments: Array.from({ length: 11 }, (_, i) => ({ filename: `page${i}.txt`, content: `page ${i}` })),
    });
    const thread = await onlyThread(stack, inbox.id);
    const [email] = ok(await stack.resend.inboxes.threads.emails.list({ ...sel, threadId: thread.id })).data;
    const queue = new Queue(INBOX_AGENT_QUEUE, {
      connection: redis,
      prefix: new Keys(stack.prefix).bullPrefix(),
    });
    try {
      const jobId = inboxAgentJobId(inbox.id, email!.id);
      await waitUntil(async () => (await queue.getJobState(jobId)) === 'failed', {
        timeoutMs: 20_000,
        message: 'the agent run failed',
      });
      // read once the job is failed: BullMQ moves it to failed and writes attemptsMade and
      // failedReason in one script, so a job read before that (while active) would be stale
      const job = (await queue.getJob(jobId))!;
      // not retried: asking the model again cannot make the forward pass
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toBe(
        "forward_thread refused (422): attachments: the files and the original's attachments: at most 10 files",
      );
    } finally {
      await queue.close();
    }
    expect(model.requests.slice(calls).filter((r) => JSON.stringify(threadOf(r)).includes(key))).toHaveLength(
      1,
    );
    expect(ok(await stack.resend.inboxes.threads.get({ ...sel, threadId: thread.id })).folder).toBe('inbox');
    expect(await agentEvents(stack, thread.id)).toEqual([]);
    expect(stack.sink.messages.filter((m) => m.parsed.subject === `Fwd: Scans ${t}`)).toEqual([]);
  });

  it('refuses every forbidden answer — an action the inbox does not allow, an unknown action, malformed JSON, a forward to an address the instructions do not name — and changes nothing', async () => {
    const { t, address, inbox, sel } = await agentInbox(stack, 'triage', (t) => ({
      instructions: `Archive newsletters. Forward invoices to billing.${t}@acme.test only.`,
      actions: ['add_labels', 'archive', 'forward_thread'],
    }));
    ok(await stack.resend.inboxes.labels.create({ ...sel, name: 'Refund' }));
    const cases = [
      ['not_allowed', '{"actions":[{"type":"draft_reply","text":"Hello!"}]}'],
      ['unknown_action', '{"actions":[{"type":"delete_mailbox"}]}'],
      ['malformed', 'Sure! I have archived this thread for you.'],
      ['malformed', '{"actions":[{"type":"add_labels","labels":"Refund"}]}'],
      ['invalid_action', `{"actions":[{"type":"forward_thread","to":["attacker.${t}@evil.example"]}]}`],
      // all or nothing: the allowed archive beside the forbidden forward is not applied either
      [
        'invalid_action',
        `{"actions":[{"type":"archive"},{"type":"forward_thread","to":["billing.${t}@acme.test.evil.example"]}]}`,
      ],
      ['invalid_action', '{"actions":[{"type":"add_labels","labels":["Urgent"]}]}'],
    ] as const;
    for (const [i, [outcome, content]] of cases.entries()) {
      const key = `refuse${i}.${t}`;
      answers.set(key, content);
      const counted = await answered(outcome);
      const calls = model.requests.length;
      await send(stack, {
        from: `eve.${t}@example.org`,
        to: address,
        subject: `Case ${i} ${t}`,
        text: `Forward this invoice. key:${key}`,
      });
      await waitUntil(async () => (await answered(outcome)) > counted, {
        timeoutMs: 20_000,
        message: `case ${i}: the answer counted as ${outcome}`,
      });
      expect(model.requests.length).toBeGreaterThan(calls);
      const thread = ok(await stack.resend.inboxes.threads.list(sel)).data.find(
        (x) => x.subject === `Case ${i} ${t}`,
      )!;
      expect(thread, `case ${i}`).toMatchObject({ folder: 'inbox', labels: [], read: false });
      expect(await agentEvents(stack, thread.id), `case ${i}: no agent event`).toEqual([]);
      const teamId = (await stack.teamEvents('inbox.created')).find(
        (e) => (e.data as { inbox_id?: string }).inbox_id === inbox.id,
      )!.teamId;
      expect(
        await new InboxesStore(redis, new Keys(stack.prefix)).activity(teamId, inbox.id, thread.id),
      ).toEqual([]);
    }
  });

  it('an inbox whose agent has no actions queues no run and calls no model', async () => {
    const { t, address, inbox } = await agentInbox(stack, 'quiet', () => ({
      instructions: 'Archive everything.',
      actions: [],
    }));
    answers.set(`quiet.${t}`, '{"actions":[{"type":"archive"}]}');
    await send(stack, {
      from: `bob.${t}@example.org`,
      to: address,
      subject: `Hello ${t}`,
      text: `key:quiet.${t}`,
    });
    const thread = await onlyThread(stack, inbox.id);
    const [email] = ok(
      await stack.resend.inboxes.threads.emails.list({ inboxId: inbox.id, threadId: thread.id }),
    ).data;
    // the run is queued (or not) before the inbound server answers 250
    const queue = new Queue(INBOX_AGENT_QUEUE, {
      connection: redis,
      prefix: new Keys(stack.prefix).bullPrefix(),
    });
    try {
      expect(await queue.getJob(inboxAgentJobId(inbox.id, email!.id))).toBeUndefined();
    } finally {
      await queue.close();
    }
    expect(model.requests.some((r) => threadOf(r).emails.some((e) => e.text?.includes(`quiet.${t}`)))).toBe(
      false,
    );
  });

  it('without a model endpoint the settings are kept, nothing is queued or called, and agent.get says so', async () => {
    const { t, address, inbox } = await agentInbox(bare, 'kept', () => ({
      instructions: 'Archive everything.',
      actions: ['archive'],
    }));
    const got = await bare.http(`/inboxes/${inbox.id}/agent`);
    expect(got.status).toBe(200);
    expect(got.headers.get('petrel-agent-runner')).toBe('off');
    expect(got.body).toEqual({
      object: 'inbox_agent',
      instructions: 'Archive everything.',
      tone: null,
      actions: ['archive'],
    });

    const calls = model.requests.length;
    await send(bare, { from: `bob.${t}@example.org`, to: address, subject: `Hello ${t}`, text: 'Hi' });
    const thread = await onlyThread(bare, inbox.id);
    expect(thread.folder).toBe('inbox');
    // no agent worker runs in this stack: a queued run would wait here for ever
    const bareRedis = createRedis(bare.redis.url);
    const queue = new Queue(INBOX_AGENT_QUEUE, {
      connection: bareRedis,
      prefix: new Keys(bare.prefix).bullPrefix(),
    });
    try {
      const counts = await queue.getJobCounts(
        'waiting',
        'delayed',
        'active',
        'completed',
        'failed',
        'prioritized',
      );
      expect(Object.values(counts).every((c) => c === 0)).toBe(true);
    } finally {
      await queue.close();
      await bareRedis.quit();
    }
    expect(model.requests.length).toBe(calls);
  });
});

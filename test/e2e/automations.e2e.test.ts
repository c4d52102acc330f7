/**
 * Automations e2e with the official SDK (resend.automations.*, resend.events.send): the API's
 * shapes and graph validation; the welcome scenario on both branches (scenarios/automations.ts,
 * also run by the cluster suite); an event refused by its schema starting nothing; wait_for_event
 * resuming on its event and taking the timeout branch without it; stop cancelling waiting runs;
 * and a worker process killed (kill -9) while runs are under way sending no step twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { AUTOMATION_QUEUE } from '@petrel/contracts';
import { createRedis, Keys } from '@petrel/store';
import { freePort, waitUntil, type NodeProcess } from '@petrel/testing';
import { createdId, ok, startApp, startStack, type Stack } from './helpers.js';
import {
  automationWelcomeScenario,
  distinctMail,
  publishedTemplate,
  waitForRuns,
} from './scenarios/automations.js';

/** Test-sized takeover of a killed worker's jobs (production: 30 s). */
const LOCKS = { WORKER_LOCK_DURATION_MS: '3000', WORKER_STALLED_INTERVAL_MS: '1000' };

let stack: Stack;
let automationQueue: Queue;
let connection: ReturnType<typeof createRedis>;
/**
 * A second worker, as its own process (so kill -9 is real): started with the stack, it shares the
 * work of every test (two workers on one queue) until the last test kills it.
 */
let child: Promise<{ process: NodeProcess; metricsPort: number }> | undefined;
beforeAll(async () => {
  stack = await startStack({ env: LOCKS });
  connection = createRedis(stack.redis.url);
  automationQueue = new Queue(AUTOMATION_QUEUE, { connection, prefix: new Keys(stack.prefix).bullPrefix() });
  child = startChildWorker();
  child.catch(() => undefined); // awaited (and reported) by the test that needs it
});
afterAll(async () => {
  await (await child?.catch(() => undefined))?.process.stop(1000);
  await automationQueue?.close();
  await connection?.quit();
  await stack?.stop();
});

/** Resolves once the automation queue has nothing due or running (sleeping steps aside). */
async function automationsIdle(): Promise<void> {
  await waitUntil(
    async () => {
      const c = await automationQueue.getJobCounts('waiting', 'active', 'prioritized');
      return Object.values(c).every((x) => x === 0);
    },
    { message: 'the automation queue to be idle' },
  );
}

let n = 0;
const unique = (name: string): string => `${name}-${Date.now().toString(36)}-${++n}`;
const trigger = (eventName: string) => ({ key: 'start', type: 'trigger' as const, config: { eventName } });

describe('automations API', () => {
  it('creates, reads, lists, updates, duplicates, stops and deletes; refuses broken graphs naming the field', async () => {
    const { resend } = stack;
    const event = unique('api.test');
    const id = await createdId(
      resend.automations.create({
        name: 'API shapes',
        steps: [trigger(event), { key: 'later', type: 'delay', config: { duration: 'PT1S' } }],
        connections: [{ from: 'start', to: 'later' }],
      }),
    );

    expect(ok(await resend.automations.get(id))).toEqual({
      object: 'automation',
      id,
      name: 'API shapes',
      status: 'disabled',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: event } },
        { key: 'later', type: 'delay', config: { duration: 'PT1S' } },
      ],
      connections: [{ from: 'start', to: 'later', type: 'default' }],
    });

    expect((await resend.automations.update(id, { name: 'Renamed', status: 'enabled' })).data).toEqual({
      object: 'automation',
      id,
    });
    const enabled = await resend.automations.list({ status: 'enabled' });
    expect(enabled.data!.data.find((a) => a.id === id)).toMatchObject({ name: 'Renamed', status: 'enabled' });
    expect((await resend.automations.list({ status: 'disabled' })).data!.data.some((a) => a.id === id)).toBe(
      false,
    );

    const dup = await resend.automations.duplicate(id);
    expect(dup.data).toEqual({ object: 'automation', id: expect.any(String) });
    expect((await resend.automations.get(dup.data!.id)).data).toMatchObject({
      name: 'Renamed (copy)',
      status: 'disabled',
    });

    expect((await resend.automations.stop(id)).data).toEqual({
      object: 'automation',
      id,
      status: 'disabled',
    });
    expect((await resend.automations.runs.list({ automationId: id })).data).toEqual({
      object: 'list',
      has_more: false,
      data: [],
    });
    expect((await resend.automations.remove(id)).data).toEqual({ object: 'automation', id, deleted: true });
    expect((await resend.automations.get(id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    await resend.automations.remove(dup.data!.id);

    // graph and config validation: 422 naming the field
    const refused = async (body: Parameters<typeof resend.automations.create>[0], message: string) => {
      const res = await resend.automations.create(body);
      expect(res.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(res.error!.message).toContain(message);
    };
    await refused(
      {
        name: 'x',
        steps: [trigger(event), { key: 'd', type: 'delay', config: { duration: '31 days' } }],
        connections: [{ from: 'start', to: 'd' }],
      },
      'steps[1].config.duration: must be at most 30 days',
    );
    await refused(
      { name: 'x', steps: [trigger(event)], connections: [{ from: 'start', to: 'nowhere' }] },
      'connections[0].to: no step has the key "nowhere"',
    );
    await refused(
      {
        name: 'x',
        steps: [
          trigger(event),
          { key: 'c', type: 'condition', config: { type: 'rule', field: 'event.a', operator: 'exists' } },
        ],
        connections: [{ from: 'start', to: 'c' }],
      },
      'steps[1]: a condition step needs a connection of type condition_met',
    );
    const raw = await stack.http('/automations/not-a-uuid/runs?status=running,bogus');
    expect(raw.status).toBe(422);
    expect(raw.body.message).toContain('status: "bogus" is not one of');
  });
});

async function startChildWorker(): Promise<{ process: NodeProcess; metricsPort: number }> {
  const metricsPort = await freePort();
  const worker = await startApp('worker', {
    REDIS_URL: stack.redis.url,
    REDIS_KEY_PREFIX: stack.prefix,
    SMTP_URL: stack.sink.url,
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'warn',
    AUTOMATION_CONCURRENCY: '50',
    // as the stack (all-in-one): templates send from any domain
    ENFORCE_VERIFIED_DOMAINS: 'false',
    ...LOCKS,
  });
  return { process: worker, metricsPort };
}

/** Step jobs a worker process has run, from its /metrics. */
async function stepsRunBy(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return [...text.matchAll(/^petrel_automation_step_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

describe('automation runs', () => {
  it('runs the welcome series on both branches, counted by the metrics', async () => {
    await automationWelcomeScenario(stack);
    // the two worker processes (the stack's and the second one) share the runs
    const { metricsPort } = await child!;
    const texts = await Promise.all(
      [stack.metricsUrl, `http://127.0.0.1:${metricsPort}/metrics`].map(async (url) =>
        (await fetch(url)).text(),
      ),
    );
    // the sum over both processes and every series (each carries the process's `app` label)
    const value = (name: string) =>
      texts
        .flatMap((text) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'gm'))])
        .reduce((sum, m) => sum + Number(m[1]), 0);
    expect(value('petrel_automation_runs_started_total')).toBeGreaterThanOrEqual(2);
    expect(value('petrel_automation_runs_completed_total')).toBeGreaterThanOrEqual(2);
    expect(value('petrel_automation_step_duration_seconds_count')).toBeGreaterThanOrEqual(12);
    for (const text of texts) expect(text).toMatch(/^petrel_automation_runs_failed_total(\{[^}]*\})? \d+/m);
  });

  it('an event whose payload fails its schema is refused and starts no run', async () => {
    const event = unique('seats.changed');
    expect((await stack.resend.events.create({ name: event, schema: { seats: 'number' } })).error).toBeNull();
    const created = await stack.resend.automations.create({
      name: 'Typed',
      status: 'enabled',
      steps: [trigger(event), { key: 'later', type: 'delay', config: { duration: 'PT1S' } }],
      connections: [{ from: 'start', to: 'later' }],
    });
    const automationId = created.data!.id;
    const email = `${unique('typed')}@automations.test`;
    const refused = await stack.resend.events.send({ event, email, payload: { seats: 'many' } });
    expect(refused.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(refused.error!.message).toContain('payload.seats');
    const accepted = await stack.resend.events.send({ event, email, payload: { seats: '3' } });
    expect(accepted.error).toBeNull();
    const [run] = await waitForRuns(stack, automationId, 1, 'completed');
    expect((await stack.resend.automations.runs.list({ automationId })).data!.data).toHaveLength(1);
    const detail = await stack.resend.automations.runs.get({ automationId, runId: run!.id });
    expect(detail.data!.steps.map((st) => [st.key, st.status])).toEqual([
      ['start', 'completed'],
      ['later', 'completed'],
    ]);
  });

  /**
   * trigger → wait_for_event (`timeout`) → `received` | `timed_out` emails. A run that must resume
   * on its event gets a long timeout: with PT1S a loaded machine can let the second pass before
   * the event is recorded, and the run would rightly take the timeout branch.
   */
  async function waitAutomation(timeout = 'PT1S') {
    const event = unique('trial.started');
    const awaited = unique('trial.converted');
    const gotSubject = unique('Thanks');
    const lateSubject = unique('Still there');
    const got = await publishedTemplate(stack, 'Thanks', gotSubject);
    const late = await publishedTemplate(stack, 'Late', lateSubject);
    const created = await stack.resend.automations.create({
      name: 'Wait',
      status: 'enabled',
      steps: [
        trigger(event),
        {
          key: 'wait',
          type: 'wait_for_event',
          config: {
            eventName: awaited,
            timeout,
            filterRule: { type: 'rule', field: 'event.amount', operator: 'gte', value: 10 },
          },
        },
        {
          key: 'received',
          type: 'send_email',
          config: { template: { id: got, variables: { NAME: { var: 'wait_events.' + awaited + '.who' } } } },
        },
        { key: 'timed_out', type: 'send_email', config: { template: { id: late } } },
      ],
      connections: [
        { from: 'start', to: 'wait' },
        { from: 'wait', to: 'received', type: 'event_received' },
        { from: 'wait', to: 'timed_out', type: 'timeout' },
      ],
    });
    expect(created.error).toBeNull();
    return { id: created.data!.id, event, awaited, gotSubject, lateSubject };
  }

  it('wait_for_event resumes on its event (filter permitting) and takes the timeout branch without it', async () => {
    const resumes = await waitAutomation('PT1H');
    const expires = await waitAutomation('PT1S');
    const waiter = `${unique('wait')}@automations.test`;
    const idle = `${unique('idle')}@automations.test`;
    await stack.resend.events.send({ event: resumes.event, email: waiter });
    await stack.resend.events.send({ event: expires.event, email: idle });
    await waitUntil(
      async () => {
        const runs =
          (await stack.resend.automations.runs.list({ automationId: resumes.id })).data?.data ?? [];
        const run =
          runs[0] &&
          (await stack.resend.automations.runs.get({ automationId: resumes.id, runId: runs[0].id })).data;
        return run?.steps.find((s) => s.key === 'wait')?.status === 'waiting';
      },
      { message: 'the run to wait' },
    );
    // filtered out, then the matching one
    await stack.resend.events.send({
      event: resumes.awaited,
      email: waiter,
      payload: { amount: 5, who: 'No' },
    });
    await stack.resend.events.send({
      event: resumes.awaited,
      email: waiter,
      payload: { amount: 12, who: 'Grace' },
    });

    await waitForRuns(stack, resumes.id, 1, 'completed');
    await waitForRuns(stack, expires.id, 1, 'completed');
    await stack.drained();
    const thanks = distinctMail(stack, waiter, resumes.gotSubject);
    expect(thanks).toHaveLength(1);
    expect(thanks[0]!.parsed.html).toContain('Grace');
    expect(distinctMail(stack, waiter, resumes.lateSubject)).toHaveLength(0);
    expect(distinctMail(stack, idle, expires.lateSubject)).toHaveLength(1);
    expect(distinctMail(stack, idle, expires.gotSubject)).toHaveLength(0);
  });

  it('stop cancels the waiting runs', async () => {
    const a = await waitAutomation();
    // a long wait this time: only the stop can end it
    await stack.resend.automations.update(a.id, {
      steps: [
        trigger(a.event),
        { key: 'wait', type: 'wait_for_event', config: { eventName: a.awaited, timeout: '1 day' } },
        { key: 'received', type: 'contact_update', config: { firstName: 'Resumed' } },
        { key: 'timed_out', type: 'contact_update', config: { firstName: 'Timed out' } },
      ],
      connections: [
        { from: 'start', to: 'wait' },
        { from: 'wait', to: 'received', type: 'event_received' },
        { from: 'wait', to: 'timed_out', type: 'timeout' },
      ],
    });
    const email = `${unique('stopped')}@automations.test`;
    await stack.resend.events.send({ event: a.event, email });
    const [run] = await waitForRuns(stack, a.id, 1, 'running');
    await waitUntil(
      async () =>
        (await stack.resend.automations.runs.get({ automationId: a.id, runId: run!.id })).data?.steps.find(
          (s) => s.key === 'wait',
        )?.status === 'waiting',
      { message: 'the run to wait' },
    );
    expect((await stack.resend.automations.stop(a.id)).data).toEqual({
      object: 'automation',
      id: a.id,
      status: 'disabled',
    });
    expect(
      (await stack.resend.automations.runs.list({ automationId: a.id, status: 'cancelled' })).data!.data,
    ).toHaveLength(1);
    // the awaited event no longer resumes it, and the automation starts nothing new
    await stack.resend.events.send({ event: a.awaited, email });
    await stack.resend.events.send({ event: a.event, email });
    await automationsIdle();
    const contact = await stack.resend.contacts.get({ email });
    expect(contact.data!.first_name).toBeNull();
    const runs = (await stack.resend.automations.runs.list({ automationId: a.id })).data!.data;
    expect(runs.map((r) => r.status)).toEqual(['cancelled']);
  });

  it('a worker killed mid-run sends no step twice', async () => {
    const { process: worker, metricsPort } = await child!;
    const before = await stepsRunBy(metricsPort);
    const event = unique('order.placed');
    const firstSubject = unique('Order received');
    const secondSubject = unique('Order update');
    const first = await publishedTemplate(stack, 'First', firstSubject);
    const second = await publishedTemplate(stack, 'Second', secondSubject);
    const created = await stack.resend.automations.create({
      name: 'Kill',
      status: 'enabled',
      steps: [
        trigger(event),
        { key: 'first', type: 'send_email', config: { template: { id: first } } },
        { key: 'pause', type: 'delay', config: { duration: 'PT1S' } },
        { key: 'second', type: 'send_email', config: { template: { id: second } } },
      ],
      connections: [
        { from: 'start', to: 'first' },
        { from: 'first', to: 'pause' },
        { from: 'pause', to: 'second' },
      ],
    });
    const automationId = created.data!.id;
    const users = Array.from({ length: 10 }, (_, i) => `${unique(`kill${i}`)}@automations.test`);
    await Promise.all(users.map((email) => stack.resend.events.send({ event, email })));
    // kill -9 while runs are under way (the child has run steps of them; first emails are
    // arriving, delays and second sends are ahead)
    await waitUntil(
      async () =>
        (await stepsRunBy(metricsPort)) > before &&
        users.some((u) => distinctMail(stack, u, firstSubject).length > 0),
      { message: 'the child to run steps and a first email to arrive' },
    );
    worker.kill('SIGKILL');
    await worker.exited();

    await waitForRuns(stack, automationId, users.length, 'completed', 30_000);
    await stack.drained(20_000);
    for (const u of users) {
      expect(distinctMail(stack, u, firstSubject)).toHaveLength(1);
      expect(distinctMail(stack, u, secondSubject)).toHaveLength(1);
    }
  });
});

/**
 * The automation scenario shared by the single-node suite (automations.e2e.test.ts) and the Redis
 * Cluster suite: "on user.signed_up → send the welcome template → delay 2 s → condition
 * plan == 'pro' → send the pro template, else add to a segment", run for one contact of each
 * branch with the official SDK (resend.automations.*, resend.events.send). Mail is checked at the
 * SMTP sink, segment membership through the SDK, and each run's steps through runs.get.
 */
import { expect } from 'vitest';
import { waitUntil, type SinkMessage } from '@petrel/testing';
import type { Stack } from '../helpers.js';

let n = 0;
const unique = (name: string): string => `${name}-${Date.now().toString(36)}-${++n}`;

/** A published template; its id. */
export async function publishedTemplate(stack: Stack, name: string, subject: string): Promise<string> {
  const { data, error } = await stack.resend.templates
    .create({
      name,
      from: 'Acme <hello@acme.test>',
      subject,
      html: `<p>${subject}, {{{NAME}}}!</p>`,
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'friend' }],
    })
    .publish();
  expect(error).toBeNull();
  return data!.id;
}

/** Messages at the sink to `address` with `subject`, one per Message-ID (a redelivery is not a second email). */
export function distinctMail(stack: Stack, address: string, subject: string): SinkMessage[] {
  const byId = new Map<string, SinkMessage>();
  for (const m of stack.sink.messages) {
    if (m.parsed.subject !== subject) continue;
    if (!m.envelope.to.some((t) => t.toLowerCase() === address.toLowerCase())) continue;
    byId.set(m.parsed.messageId ?? `${byId.size}`, m);
  }
  return [...byId.values()];
}

/** Waits for a run of `automationId` in one of `statuses`; the runs listed then. */
export async function waitForRuns(
  stack: Stack,
  automationId: string,
  count: number,
  status: 'running' | 'completed' | 'failed' | 'cancelled',
  timeoutMs = 20_000,
) {
  return waitUntil(
    async () => {
      const { data } = await stack.resend.automations.runs.list({ automationId, status });
      return data && data.data.length >= count ? data.data : undefined;
    },
    { timeoutMs, message: `${count} ${status} run(s) of automation ${automationId}` },
  );
}

export async function automationWelcomeScenario(stack: Stack): Promise<void> {
  const { resend } = stack;
  const welcomeSubject = unique('Welcome');
  const proSubject = unique('Pro tips');
  const welcome = await publishedTemplate(stack, 'Welcome', welcomeSubject);
  const pro = await publishedTemplate(stack, 'Pro', proSubject);
  const segment = await resend.segments.create({ name: unique('Free plan') });
  expect(segment.error).toBeNull();
  const segmentId = segment.data!.id;
  const event = unique('user.signed_up');

  const created = await resend.automations.create({
    name: 'Welcome series',
    status: 'enabled',
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: event } },
      {
        key: 'welcome',
        type: 'send_email',
        config: { template: { id: welcome, variables: { NAME: { var: 'event.name' } } } },
      },
      { key: 'pause', type: 'delay', config: { duration: '2 seconds' } },
      {
        key: 'is_pro',
        type: 'condition',
        config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
      },
      { key: 'pro', type: 'send_email', config: { template: { id: pro } } },
      { key: 'free', type: 'add_to_segment', config: { segmentId } },
    ],
    connections: [
      { from: 'start', to: 'welcome' },
      { from: 'welcome', to: 'pause' },
      { from: 'pause', to: 'is_pro' },
      { from: 'is_pro', to: 'pro', type: 'condition_met' },
      { from: 'is_pro', to: 'free', type: 'condition_not_met' },
    ],
  });
  expect(created.error).toBeNull();
  expect(created.data).toEqual({ object: 'automation', id: expect.any(String) });
  const automationId = created.data!.id;

  const proUser = `${unique('ada')}@automations.test`;
  const freeUser = `${unique('bob')}@automations.test`;
  for (const [email, plan, name] of [
    [proUser, 'pro', 'Ada'],
    [freeUser, 'free', 'Bob'],
  ] as const) {
    const sent = await resend.events.send({ event, email, payload: { plan, name } });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ object: 'event', event });
  }

  const runs = await waitForRuns(stack, automationId, 2, 'completed');
  expect(runs).toHaveLength(2);

  // welcome to both (with the event's name), pro tips only to the pro user
  await stack.drained(20_000);
  const proWelcome = distinctMail(stack, proUser, welcomeSubject);
  expect(proWelcome).toHaveLength(1);
  expect(proWelcome[0]!.parsed.html).toContain('Ada');
  expect(distinctMail(stack, freeUser, welcomeSubject)).toHaveLength(1);
  expect(distinctMail(stack, proUser, proSubject)).toHaveLength(1);
  expect(distinctMail(stack, freeUser, proSubject)).toHaveLength(0);

  // the free user is in the segment, the pro user is not
  const free = await resend.contacts.segments.list({ email: freeUser });
  expect(free.error).toBeNull();
  expect(free.data!.data.map((s) => s.id)).toEqual([segmentId]);
  const proSegments = await resend.contacts.segments.list({ email: proUser });
  expect(proSegments.data!.data).toEqual([]);

  // each run's steps, in graph order: the branch not taken is skipped
  for (const item of runs) {
    const { data: run, error } = await resend.automations.runs.get({ automationId, runId: item.id });
    expect(error).toBeNull();
    expect(run).toMatchObject({ object: 'automation_run', id: item.id, status: 'completed' });
    expect(run!.completed_at).not.toBeNull();
    const byKey = Object.fromEntries(run!.steps.map((s) => [s.key, s]));
    expect(run!.steps.map((s) => s.key)).toEqual(['start', 'welcome', 'pause', 'is_pro', 'pro', 'free']);
    for (const key of ['start', 'welcome', 'pause', 'is_pro'])
      expect(byKey[key]).toMatchObject({ status: 'completed', error: null });
    expect(byKey.welcome!.output).toEqual({ email_id: expect.any(String) });
    const isPro = (byKey.is_pro!.output as { result: boolean }).result;
    expect(byKey.pro!.status).toBe(isPro ? 'completed' : 'skipped');
    expect(byKey.free!.status).toBe(isPro ? 'skipped' : 'completed');
  }
}

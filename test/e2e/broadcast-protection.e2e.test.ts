/**
 * Broadcast protection e2e (docs/operations.md, "Broadcast protection"): through the official
 * `resend` SDK, a broadcast to a segment with a seeded complaining (complained@resend.dev) or
 * hard-bouncing (bounced@resend.dev) recipient — real simulated events, no SMTP for them — pauses
 * once its rate goes over the threshold (a small minimum sample here), says why
 * (`status: paused`, `paused_reason`, a `broadcast.paused` team event, the metric), and loses nothing: every contact's email is either done
 * (sent before the pause) or held (`queued`, its job waiting). Resumed (POST
 * /broadcasts/:id/resume), it goes on to completion with exactly one email per contact in the
 * SMTP sink; canceled, its held emails end `canceled` and are never sent. A team's own thresholds,
 * set with the CLI (`petrel team limits --complaint-rate … --min-sample …`), replace the
 * deployment's (BROADCAST_PROTECTION_*) for that team's broadcasts.
 */
import { Resend } from 'resend';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { fileStack, petrelCli } from './helpers.js';
import { WEBHOOK_TEST_ENV, fileWebhookEndpoint } from './scenarios/webhooks.js';

/** Small enough for a test segment; the rates keep their documented defaults (0.3 %, 5 %). */
const MIN_SAMPLE = 10;
/** Long enough that every held job is seen waiting at once, short enough for a quick resume. */
const HOLD_RECHECK_MS = 2_000;

const stack = fileStack({
  env: {
    ...WEBHOOK_TEST_ENV,
    BROADCAST_PROTECTION_MIN_SAMPLE: String(MIN_SAMPLE),
    BROADCAST_HOLD_RECHECK_MS: String(HOLD_RECHECK_MS),
    WORKER_BROADCAST_CONCURRENCY: '5',
  },
});
const endpoint = fileWebhookEndpoint(stack, ['broadcast.paused']);

const DONE = new Set(['sent', 'delivered', 'bounced', 'complained', 'canceled']);

interface Listed {
  id: string;
  to: string[];
  last_event: string;
}

/** A segment of `addresses` (created in this order: the fan-out's order), and a broadcast to it, sent. */
async function sendBroadcast(
  name: string,
  addresses: string[],
  resend: Resend = stack.resend,
): Promise<string> {
  const segment = await resend.segments.create({ name });
  expect(segment.error).toBeNull();
  for (const address of addresses) {
    const { error } = await resend.contacts.create({ email: address, segments: [{ id: segment.data!.id }] });
    expect(error).toBeNull();
  }
  const created = await resend.broadcasts.create({
    segmentId: segment.data!.id,
    from: 'Acme <news@acme.test>',
    subject: `News ${name}`,
    html: '<p>News</p>',
  });
  expect(created.error).toBeNull();
  expect((await resend.broadcasts.send(created.data!.id)).error).toBeNull();
  return created.data!.id;
}

/** The emails to `addresses` (GET /emails lists them with their recipient and last event). */
async function emailsTo(addresses: readonly string[]): Promise<Listed[]> {
  const res = await stack.http('/emails?limit=100');
  expect(res.status).toBe(200);
  const wanted = new Set(addresses);
  const mine = (res.body.data as Listed[]).filter((e) => wanted.has(e.to[0]!));
  expect(mine).toHaveLength(addresses.length);
  return mine;
}

/** Waits until the broadcast is paused, and returns its answer. */
async function paused(id: string, resend: Resend = stack.resend): Promise<Record<string, unknown>> {
  return waitUntil(
    async () => {
      const { data } = await resend.broadcasts.get(id);
      return data?.status === ('paused' as string) ? (data as unknown as Record<string, unknown>) : null;
    },
    { timeoutMs: 30_000, message: `broadcast ${id} paused` },
  );
}

/**
 * Waits until every email to `addresses` is done or held, the same on two reads in a row (the
 * few sends the lane had running when the pause came have ended): what the pause holds.
 */
async function heldStill(addresses: readonly string[]): Promise<{ done: Listed[]; held: Listed[] }> {
  let previous = '';
  return waitUntil(
    async () => {
      const emails = await emailsTo(addresses);
      const held = emails.filter((e) => e.last_event === 'queued');
      const done = emails.filter((e) => DONE.has(e.last_event));
      const snapshot = done
        .map((e) => e.id)
        .sort()
        .join();
      const stable = snapshot === previous;
      previous = snapshot;
      if (!stable || held.length + done.length !== addresses.length || held.length === 0) return null;
      return { done, held };
    },
    { timeoutMs: 30_000, message: `the emails to ${addresses.length} contacts done or held` },
  );
}

const people = (tag: string, n: number, from = 0): string[] =>
  Array.from({ length: n }, (_, i) => `${tag}-${from + i}@people.test`);

describe('a broadcast over its complaint threshold', () => {
  it('pauses with nothing lost, says why, and resumed sends each contact exactly one email', async () => {
    // 30 good recipients before the complainer: when its complaint is recorded, at least
    // MIN_SAMPLE emails were sent (the lane runs 5 at once, in order); 30 after it are held
    const complainer = `complained+protect-${Date.now()}@resend.dev`;
    const good = [...people('c', 30), ...people('c', 30, 30)];
    const addresses = [...good.slice(0, 30), complainer, ...good.slice(30)];
    const id = await sendBroadcast('complaints', addresses);

    const answer = await paused(id);
    expect(answer.paused_reason).toMatch(
      /^complaint rate [\d.]+ % over \d+ sent emails exceeds the team's threshold of 0\.3 %$/,
    );

    const { done, held } = await heldStill(addresses);
    // a hold spends no attempt of the retry ladder: a held job that looked at its paused
    // broadcast twice (held, woke, held again) still has all its attempts
    const rechecked = await waitUntil(
      async () => {
        const job = await stack.sendJob(held[0]!.id);
        return job !== null && job.attemptsStarted >= 2 ? job : null;
      },
      { timeoutMs: 20_000, message: 'a held email to look at its broadcast twice' },
    );
    expect(rechecked.attemptsMade).toBe(0);
    // nothing lost: every contact has one email, done before the pause or held
    expect(new Set([...done, ...held].map((e) => e.to[0])).size).toBe(addresses.length);
    expect(held.length).toBeGreaterThan(0);
    // the held ones were not sent: the sink has exactly the done good ones
    const sunk = new Set(stack.sink.messages.map((m) => m.envelope.to[0]));
    for (const e of held) expect(sunk.has(e.to[0]!), e.to[0]).toBe(false);
    // the team's event, once (the webhook dispatcher reads the same stream)
    const events = await stack.teamEvents('broadcast.');
    expect(events.filter((e) => e.data.broadcast_id === id)).toMatchObject([
      { type: 'broadcast.paused', data: { broadcast_id: id, paused_reason: answer.paused_reason } },
    ]);
    // and as a signed webhook to the endpoint subscribed to it
    const delivered = await waitUntil(
      () => endpoint.delivered().find((e) => e.data.broadcast_id === id) ?? null,
      { timeoutMs: 20_000, message: 'the broadcast.paused webhook' },
    );
    expect(delivered).toMatchObject({
      type: 'broadcast.paused',
      data: { paused_reason: answer.paused_reason },
    });
    // the log line's metric
    expect(await (await fetch(stack.metricsUrl)).text()).toMatch(
      /petrel_broadcasts_paused_total\{reason="complaint_rate"[^}]*\} 1\n/,
    );

    const resumed = await stack.http(`/broadcasts/${id}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual({ object: 'broadcast', id });
    // a second resume is refused, naming the rule
    const again = await stack.http(`/broadcasts/${id}/resume`, { method: 'POST' });
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/only a paused broadcast can be resumed/);

    await stack.sink.waitFor(good.length, 60_000);
    const all = await emailsTo(addresses);
    await stack.settled(
      all.map((e) => e.id),
      60_000,
    );
    const perRecipient = new Map<string, number>();
    for (const m of stack.sink.messages) {
      const to = m.envelope.to[0]!;
      if (good.includes(to)) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
    }
    expect(perRecipient.size).toBe(good.length);
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    await waitUntil(async () => (await stack.resend.broadcasts.get(id)).data?.status === 'sent', {
      timeoutMs: 30_000,
      message: 'the resumed broadcast sent',
    });
  });
});

describe('a broadcast over its hard-bounce threshold', () => {
  it('pauses, and canceled, its held emails are canceled and never sent', async () => {
    // three bouncers among the first 22: at the last one at least 15 emails were sent (the lane
    // runs 5 at once, in order) and at most 19, so the rate is over 5 % whatever the timing
    const bouncers = [11, 16, 21].map((i) => `bounced+protect-${i}-${Date.now()}@resend.dev`);
    const good = people('b', 57);
    const addresses = [...good];
    [11, 16, 21].forEach((at, i) => addresses.splice(at, 0, bouncers[i]!));
    const sinkBefore = stack.sink.messages.length;
    const id = await sendBroadcast('bounces', addresses);

    const answer = await paused(id);
    expect(answer.paused_reason).toMatch(
      /^hard-bounce rate [\d.]+ % over \d+ sent emails exceeds the team's threshold of 5 %$/,
    );
    const { held } = await heldStill(addresses);

    const canceled = await stack.http(`/broadcasts/${id}/cancel`, { method: 'POST' });
    expect(canceled.status).toBe(200);
    const all = await emailsTo(addresses);
    await stack.settled(
      all.map((e) => e.id),
      30_000,
    );
    const after = await emailsTo(addresses);
    const byId = new Map(after.map((e) => [e.id, e.last_event]));
    for (const e of held) expect(byId.get(e.id), e.to[0]).toBe('canceled');
    // sent before the pause + canceled = every contact; the sink got only the sent ones
    const sent = after.filter((e) => e.last_event !== 'canceled');
    expect(sent.length + held.length).toBe(addresses.length);
    expect(stack.sink.messages.length - sinkBefore).toBe(
      sent.filter((e) => !bouncers.includes(e.to[0]!)).length,
    );
    expect((await stack.resend.broadcasts.get(id)).data?.status).toBe('canceled');
  });
});

describe("a team's own thresholds (petrel team limits)", () => {
  it("pause the team's broadcast by its threshold, not the deployment's", async () => {
    const cli = petrelCli(stack);
    const team = (await cli('teams', 'create', 'careful')).stdout.trim();
    const token = /token: (\S+)/.exec(
      (await cli('keys', 'create', '--name', 'k', '--team', team)).stdout,
    )![1]!;
    const shown = (
      await cli('team', 'limits', '--team', team, '--complaint-rate', '0.05', '--min-sample', '1')
    ).stdout;
    expect(shown).toMatch(/complaint rate: +5 %/);
    // the others fall back to the deployment's, and say so
    expect(shown).toMatch(/hard-bounce rate: +default \(5 %\)/);
    expect(shown).toMatch(/min sample: +1 sent emails/);
    // a bad value is refused, naming the option and the rule
    await expect(cli('team', 'limits', '--team', team, '--complaint-rate', '3')).rejects.toMatchObject({
      stderr: expect.stringContaining('--complaint-rate must be a fraction from 0 to 1'),
    });

    // one complaint among 16: over the team's 5 % whatever the number sent when it is read (the
    // lane runs 5 at once, in no set order: 1 to 16), where the deployment's threshold is 0.3 %
    const resend = new Resend(token, { baseUrl: stack.baseUrl });
    const complainer = `complained+team-${Date.now()}@resend.dev`;
    const addresses = [...people('t', 3), complainer, ...people('t', 12, 3)];
    const id = await sendBroadcast('team thresholds', addresses, resend);
    const answer = await paused(id, resend);
    expect(answer.paused_reason).toMatch(
      /^complaint rate [\d.]+ % over \d+ sent emails exceeds the team's threshold of 5 %$/,
    );
    const canceled = await stack.http(`/broadcasts/${id}/cancel`, { method: 'POST', key: token });
    expect(canceled.status).toBe(200);
  });
});

/**
 * The stuck-email watchdog under chaos: send jobs deleted behind the service's back.
 *
 * With the send queues paused (no worker can take a job), emails are accepted — some to be sent
 * at once (`queued`), some scheduled a second ahead — and every one of their BullMQ jobs is
 * deleted; a few are marked as re-enqueued by the watchdog already (their job then vanished a
 * second time). After the queues resume, the scheduler's watchdog must bring every email to a
 * terminal state: delivered at the sink exactly once, or `failed` with the watchdog's reason on
 * its timeline — nothing left unfinished, nothing sent twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSinkProcess, waitUntil, type NodeProcess, type SmtpSinkProcess } from '@petrel/testing';
import { SendQueues } from '@petrel/queue';
import { email, fileStack, startApp } from './helpers.js';

/** Test-sized watchdog: every second, for emails 2 s past due. */
const WATCHDOG_ENV = { WATCHDOG_INTERVAL_S: '1', WATCHDOG_STUCK_AFTER_S: '2' };
/**
 * Test-sized takeover of a dead worker's jobs, and no second chance: a job whose worker died is
 * failed by BullMQ at once (maxStalledCount 0), leaving its email `queued` behind a failed job —
 * the watchdog's to end.
 */
const WORKER_LOCKS = {
  WORKER_LOCK_DURATION_MS: '2000',
  WORKER_STALLED_INTERVAL_MS: '1000',
  WORKER_MAX_STALLED_COUNT: '0',
};

const stack = fileStack({ env: { ...WATCHDOG_ENV, ...WORKER_LOCKS } });
let queues: SendQueues;

beforeAll(() => {
  queues = new SendQueues(stack.admin, { prefix: stack.keys.bullPrefix() });
});

// runs before the stack's own afterAll (vitest runs afterAll hooks last-registered first)
afterAll(async () => {
  await queues?.close();
});

describe('stuck-email watchdog', () => {
  it('brings every email whose job vanished to a terminal state, each delivered at most once', async () => {
    const { admin, keys, teamId: team } = stack;
    await Promise.all(queues.queues.map((q) => q.pause()));
    const due = new Date(Date.now() + 1_000).toISOString();
    const sent = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const body = email(i, { subject: `watchdog ${i}`, ...(i % 2 === 1 && { scheduled_at: due }) });
        const res = await stack.http('/emails', { method: 'POST', body: JSON.stringify(body) });
        expect(res.status).toBe(200);
        return { i, id: (res.body as { id: string }).id };
      }),
    );
    // behind the service's back: every job gone; 3 emails "already re-enqueued once"
    for (const { id } of sent) expect(await queues.remove('send', id)).toBe(true);
    const lostTwice = new Set(sent.slice(0, 3).map((s) => s.id));
    for (const id of lostTwice) await admin.hset(keys.email(team, id), 'watchdog_requeued_ms', '1');
    await Promise.all(queues.queues.map((q) => q.resume()));

    const statuses = async () =>
      Promise.all(
        sent.map(async (s) => ({ ...s, status: await admin.hget(keys.email(team, s.id), 'status') })),
      );
    await waitUntil(
      async () => (await statuses()).every((s) => s.status === 'delivered' || s.status === 'failed'),
      { timeoutMs: 20_000, message: 'every email to be delivered or failed' },
    );

    await stack.drained(); // no job left that could still send a copy
    const final = await statuses();
    for (const s of final) {
      const copies = stack.sink.messages.filter((m) => m.parsed.subject === `watchdog ${s.i}`).length;
      if (lostTwice.has(s.id)) {
        expect(s.status).toBe('failed');
        expect(copies).toBe(0);
        const got = await stack.resend.emails.get(s.id);
        expect(got.data?.last_event).toBe('failed');
        const timeline = await admin.lrange(keys.emailEvents(team, s.id), 0, -1);
        const failed = timeline.map((e) => JSON.parse(e) as { type: string; data: Record<string, unknown> });
        expect(failed.at(-1)).toMatchObject({
          type: 'email.failed',
          data: { failed: { reason: expect.stringMatching(/^watchdog: its send job was lost again/) } },
        });
      } else {
        expect(s.status).toBe('delivered');
        expect(copies).toBe(1);
      }
    }
    // nothing is left in the watchdog's index, and the metrics say what it did
    expect(await admin.zcard(keys.unfinishedEmails(team, 'send'))).toBe(0);
    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/petrel_watchdog_actions_total\{[^}]*action="requeued"[^}]*\} 13/);
    expect(metrics).toMatch(/petrel_watchdog_actions_total\{[^}]*action="failed"[^}]*\} 3/);
    expect(metrics).toMatch(/petrel_oldest_nonterminal_email_age_seconds\{[^}]*lane="send"[^}]*\} /);
  });

  describe('a worker killed mid-send', () => {
    let slowSink: SmtpSinkProcess | undefined;
    let victim: NodeProcess | undefined;
    afterAll(async () => {
      await victim?.stop();
      await slowSink?.stop();
    });

    it('ends the emails it held (their jobs failed by the stall check) as failed, sending none twice', async () => {
      const { admin, keys, teamId: team } = stack;
      // a relay that records each message and then never answers: the victim's sends hang there
      slowSink = await startSmtpSinkProcess({ replyDelayMs: 600_000 });
      victim = await startApp('worker', {
        REDIS_URL: stack.redis.url,
        REDIS_KEY_PREFIX: stack.prefix,
        LOG_LEVEL: 'warn',
        SMTP_URL: slowSink.url,
        WORKER_CONCURRENCY: '10',
        SMTP_CONNECTION_TIMEOUT_MS: '3000',
        ...WORKER_LOCKS,
      });

      // the stack's workers and the victim compete for the jobs: send until the victim holds some
      const ids: string[] = [];
      await waitUntil(
        async () => {
          const res = await stack.resend.batch.send(
            Array.from({ length: 10 }, (_, i) =>
              email(ids.length + i, { subject: `victim ${ids.length + i}` }),
            ) as never,
          );
          ids.push(...(res.data?.data ?? []).map((d) => d.id));
          return (await slowSink!.count()) > 0;
        },
        { timeoutMs: 15_000, intervalMs: 100, message: 'the victim to be sending' },
      );
      victim.kill('SIGKILL');
      await victim.exited();

      const status = (id: string) => admin.hget(keys.email(team, id), 'status');
      await waitUntil(
        async () => (await Promise.all(ids.map(status))).every((s) => s === 'delivered' || s === 'failed'),
        {
          timeoutMs: 20_000,
          message: 'every email to be delivered or failed',
        },
      );
      await stack.drained();

      const atSlow = new Map<string, number>();
      for (const m of await slowSink.messageIds()) {
        const id = /^<([^@>]+)@/.exec(m)?.[1] ?? m;
        atSlow.set(id, (atSlow.get(id) ?? 0) + 1);
      }
      let failed = 0;
      for (const id of ids) {
        const st = await status(id);
        const record = await admin.hget(keys.email(team, id), 'message_id');
        const copies =
          stack.sink.messages.filter((m) => m.parsed.messageId === record).length + (atSlow.get(id) ?? 0);
        expect(copies, id).toBeLessThanOrEqual(1);
        if (st === 'delivered') expect(copies, id).toBe(1);
        else {
          failed += 1;
          const timeline = (await admin.lrange(keys.emailEvents(team, id), 0, -1)).map(
            (e) => JSON.parse(e) as { type: string; data: { failed?: { reason: string } } },
          );
          expect(timeline.at(-1)?.type).toBe('email.failed');
          expect(timeline.at(-1)?.data.failed?.reason).toMatch(/^watchdog: its send job failed \(.*stalled/);
        }
      }
      expect(failed).toBeGreaterThan(0);
      expect(failed).toBeLessThanOrEqual(10); // at most the victim's concurrency
    });
  });
});

/**
 * Sending IP pools and warm-up in direct delivery, through the official `resend` SDK and the
 * whole stack: MX hosts from a local DNS server, a sink that records each connection's peer
 * address, and pools of loopback source addresses (SENDING_POOLS). An email uses its
 * from-domain's pool, else the `default` pool — the sink sees those addresses; a new address
 * has a daily cap per destination provider (WARMUP_SCHEDULE, with a short test "day",
 * WARMUP_DAY_S): what exceeds it is deferred, not failed, and goes out once the next day's cap
 * allows it. A deferral spends no attempt of the retry ladder (one retry here): an email deferred
 * twice still goes out, where two spent attempts would have ended it as a Temporary bounce.
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { fileDirectStack, sendPlain } from './helpers.js';

const DAY_S = 4;
const { stack, mx } = fileDirectStack(
  (dns, sink) => {
    // two destination providers (the MX hosts' domains), both MX hosts on the sink
    for (const domain of ['pools-a.test', 'warm-b.test']) {
      dns.set(domain, 'MX', [`mx.${domain}`]);
      dns.set(`mx.${domain}`, 'A', [sink.host]);
    }
  },
  {
    SENDING_POOLS: JSON.stringify({
      acme: { addresses: ['127.0.0.7', '127.0.0.8'], domains: ['acme-pool.e2e.test'] },
      warm: { addresses: ['127.0.0.10'], domains: ['warm.e2e.test'] },
      default: { addresses: ['127.0.0.9'] },
    }),
    // day 0: 2 emails per provider and address; day 1: 1 (a cut, so some wait twice); day 2: 100
    WARMUP_SCHEDULE: '2,1,100',
    WARMUP_DAY_S: String(DAY_S),
    // one retry: a deferral that spent it would bounce the email at its second deferral
    RETRY_SCHEDULE_S: '1',
    RETRY_TIME_SCALE: '1',
  },
);

async function delivered(ids: readonly string[]): Promise<void> {
  await waitUntil(
    async () =>
      (await Promise.all(ids.map(async (id) => (await stack.resend.emails.get(id)).data?.last_event))).every(
        (e) => e === 'delivered',
      ),
    { timeoutMs: 30_000, message: `${ids.length} emails to be delivered` },
  );
}

const peerOf = (to: string): string | undefined =>
  mx.messages.find((m) => m.envelope.to.includes(to))?.envelope.peer;

describe('sending IP pools', () => {
  it("opens the connection from the from-domain's pool, else from the default pool", async () => {
    const ids = [
      await sendPlain(stack, 'News <news@acme-pool.e2e.test>', 'one@pools-a.test', 'pool 1'),
      await sendPlain(stack, 'news@acme-pool.e2e.test', 'two@pools-a.test', 'pool 2'),
      await sendPlain(stack, 'someone@elsewhere.e2e.test', 'three@pools-a.test', 'default pool'),
    ];
    await delivered(ids);
    // round robin over the pool's two addresses
    expect(new Set([peerOf('one@pools-a.test'), peerOf('two@pools-a.test')])).toEqual(
      new Set(['127.0.0.7', '127.0.0.8']),
    );
    expect(peerOf('three@pools-a.test')).toBe('127.0.0.9');

    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/petrel_pool_sends_total\{[^}]*pool="acme"[^}]*address="127\.0\.0\.7"[^}]*\} 1/);
    expect(metrics).toMatch(
      /petrel_pool_sends_total\{[^}]*pool="default"[^}]*address="127\.0\.0\.9"[^}]*\} 1/,
    );
    expect(metrics).toMatch(/petrel_pool_warmup_cap\{[^}]*pool="default"[^}]*\} 2/);
  });

  it("defers what exceeds a new address's daily cap for a provider, and sends it on a later day", async () => {
    const to = Array.from({ length: 5 }, (_, i) => `user${i}@warm-b.test`);
    const ids = await Promise.all(
      to.map((address, i) => sendPlain(stack, 'team@warm.e2e.test', address, `warm ${i}`)),
    );
    await delivered(ids);

    const received = mx.messages.filter((m) => to.includes(m.envelope.to[0]!));
    expect(received.map((m) => m.envelope.to[0]).sort()).toEqual(to);
    expect(received.every((m) => m.envelope.peer === '127.0.0.10')).toBe(true);
    // the address's first warm-up day ends DAY_S after its first use: at most its cap (2) before
    const since = Number(await stack.admin.get(stack.keys.warmupSince('127.0.0.10')));
    expect(since).toBeGreaterThan(0);
    expect(received.filter((m) => m.receivedAt < since + DAY_S * 1000)).toHaveLength(2);
    // day 1 took one more; the last two were deferred twice (more than the ladder's one retry)
    expect(received.filter((m) => m.receivedAt < since + 2 * DAY_S * 1000)).toHaveLength(3);

    // the other three were deferred (a retryable delay), never bounced
    const events = await stack.teamEvents('email.');
    const delayed = events.filter(
      (e) => e.type === 'email.delivery_delayed' && ids.includes((e.data as { email_id: string }).email_id),
    );
    expect(new Set(delayed.map((e) => (e.data as { email_id: string }).email_id)).size).toBe(3);
    expect(JSON.stringify(delayed[0]?.data)).toContain(
      "warm-up: every address of sending pool warm reached today's cap (2)",
    );
    expect(
      events.some(
        (e) => e.type === 'email.bounced' && ids.includes((e.data as { email_id: string }).email_id),
      ),
    ).toBe(false);
    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/petrel_pool_warmup_deferrals_total\{[^}]*pool="warm"[^}]*\} ([5-9]|\d\d)/);
    expect(metrics).toMatch(
      /petrel_direct_deferrals_total\{[^}]*destination="mx\.warm-b\.test"[^}]*reason="warmup"[^}]*\} [3-9]/,
    );
  });
});

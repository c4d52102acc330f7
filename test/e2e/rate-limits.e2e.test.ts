/**
 * Per-team limits end to end (R21): the official SDK against the stack, then two more API
 * processes (the built app, as deployed) on the same Redis sharing one team's allowance.
 *
 *  - a burst over the team's requests per second: the SDK gets `rate_limit_exceeded` (429), every
 *    response carries `ratelimit-limit/remaining/reset` (+ `ratelimit-policy`), every 429 a
 *    `retry-after`; another team at the same time is never refused;
 *  - the daily sending quota: emails past it are refused with `daily_quota_exceeded` (429), the
 *    batch's others are counted one by one;
 *  - two API processes behind a round robin: what they admit together stays within the one
 *    limit (the GCRA bound: `limit` at once, then `limit` per second of elapsed time).
 *
 * Every count is checked against the bounds the GCRA guarantees (`gcraBounds` in packages/testing) over a window
 * measured on Redis's own clock, the one the limiter's script reads: right whatever the speed of
 * the machine, however the requests happen to spread out.
 */
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, gcraBounds, type NodeProcess } from '@petrel/testing';
import { RateLimitStore, type RedisClient } from '@petrel/store';
import { email, otherTeam, startApp, startStack, type Stack } from './helpers.js';
import { submissionTransport } from './scenarios/smtp-submission.js';

let stack: Stack;
let admin: RedisClient;
let limits: RateLimitStore;
let defaultTeam: string;
let other: { team: string; key: string };

beforeAll(async () => {
  stack = await startStack();
  admin = stack.admin;
  limits = new RateLimitStore(admin, stack.keys);
  defaultTeam = stack.teamId;
  const { teamId: team, key } = await otherTeam(stack, 'other');
  other = { team, key };
});

afterAll(async () => {
  await stack?.stop();
});

/** Redis's clock (TIME), ms: the clock `petrelTakeRateLimit` reads for `now`. */
async function redisNowMs(): Promise<number> {
  const [s, us] = await admin.time();
  return Number(s) * 1000 + Number(us) / 1000;
}

/**
 * The team's allowance whole again (no TAT: the next request finds `TAT ≤ now`), the state the
 * GCRA's lower bound starts from. An earlier test's last admitted request leaves the TAT up to a
 * second ahead (the SMTP test's, at 1 a second), and two API processes may start within it.
 */
async function wholeAllowance(team: string): Promise<void> {
  await admin.del(stack.keys.rateLimit(team));
}

const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'];

describe('per-team rate limits', () => {
  it('without a limit no header fields are sent and nothing is refused', async () => {
    const res = await stack.http('/api-keys');
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it('refuses a burst over the limit with rate_limit_exceeded and the IETF headers; another team is not refused', async () => {
    await limits.setLimits(defaultTeam, { rps: 2 });
    await limits.setLimits(other.team, { rps: 100 });
    const otherResend = new Resend(other.key, { baseUrl: stack.baseUrl });
    await wholeAllowance(defaultTeam);
    const from = await redisNowMs();
    const [mine, theirs] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, (_, i) => stack.resend.emails.send(email(i) as never))),
      Promise.all(Array.from({ length: 8 }, (_, i) => otherResend.emails.send(email(i) as never))),
    ]);
    const bounds = gcraBounds({ limit: 2, sent: 8, fromMs: from, toMs: await redisNowMs() });

    const admitted = mine.filter((r) => r.error === null);
    const refused = mine.filter((r) => r.error !== null);
    expect(admitted.length).toBeGreaterThanOrEqual(bounds.min);
    expect(admitted.length).toBeLessThanOrEqual(bounds.max);
    // 8 at once against 2 a second: some refused unless the 8 took 3 s to be answered
    if (bounds.max < 8) expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.error).toMatchObject({ name: 'rate_limit_exceeded', statusCode: 429 });
      expect(r.headers).toMatchObject({
        'ratelimit-limit': '2',
        'ratelimit-remaining': '0',
        'ratelimit-policy': '2;w=1',
      });
      expect(Number(r.headers!['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers!['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
    }
    for (const r of admitted) for (const h of RATE_HEADERS) expect(r.headers![h]).toBeDefined();
    expect(theirs.every((r) => r.error === null)).toBe(true);
    expect(theirs[0]!.headers!['ratelimit-limit']).toBe('100');

    // a raw 429 read with fetch: the body is Resend's error shape (the allowance used up for 3 s)
    await limits.setLimits(defaultTeam, { rps: 1 });
    await admin.set(stack.keys.rateLimit(defaultTeam), String(Date.now() + 3_000));
    const viaSdk = await stack.resend.emails.send(email(99) as never);
    expect(viaSdk.error).toMatchObject({ name: 'rate_limit_exceeded', statusCode: 429 });
    expect(viaSdk.headers).toMatchObject({ 'ratelimit-limit': '1', 'ratelimit-remaining': '0' });
    const limited = await stack.http('/emails?limit=1');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      statusCode: 429,
      name: 'rate_limit_exceeded',
      message: expect.stringMatching(/1 requests per second/),
    });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/petrel_rate_limited_total\{[^}]*kind="rate"[^}]*\} [1-9]/);
    await limits.setLimits(defaultTeam, { rps: null });
  });

  it('refuses emails past the daily quota with daily_quota_exceeded (429)', async () => {
    // a team of its own: the API reuses a team's quota setting for a few seconds
    const { teamId: team, resend: otherResend } = await otherTeam(stack, 'quota');
    await limits.setLimits(team, { dailyQuota: 3 });
    // a permissive batch of 2: both counted
    const batch = await otherResend.batch.send([email(1), email(2)] as never, {
      batchValidation: 'permissive',
    });
    expect(batch.error).toBeNull();
    expect(batch.data?.data).toHaveLength(2);
    // a permissive batch of 2 more: one fits, the other is reported
    const second = await otherResend.batch.send([email(3), email(4)] as never, {
      batchValidation: 'permissive',
    });
    expect(second.data?.data).toHaveLength(1);
    expect(second.data?.errors).toEqual([
      { index: 1, message: expect.stringMatching(/Daily sending quota reached/) },
    ]);
    const single = await otherResend.emails.send(email(5) as never);
    expect(single.error).toMatchObject({ name: 'daily_quota_exceeded', statusCode: 429 });
    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/petrel_rate_limited_total\{[^}]*kind="daily_quota"[^}]*\} [1-9]/);
  });
});

describe('SMTP submission shares the API allowance', () => {
  it('a message over the team rate is deferred with 451, the client keeps it', async () => {
    await limits.setLimits(defaultTeam, { rps: 1 });
    const smtp = submissionTransport(stack.smtpPorts.submission!, stack.key);
    try {
      const send = (i: number) =>
        smtp
          .sendMail({
            from: 'Acme <hello@acme.test>',
            to: `smtp${i}@example.test`,
            subject: `smtp ${i}`,
            text: 'x',
          })
          .then(
            (info) => ({ ok: true, response: info.response }),
            (err: { responseCode?: number; response?: string }) => ({ ok: false, ...err }),
          );
      // the team's allowance used up for the next 5 s (its TAT moved ahead, as a burst would)
      await admin.set(stack.keys.rateLimit(defaultTeam), String(Date.now() + 5_000));
      const results = [await send(0)];
      await admin.del(stack.keys.rateLimit(defaultTeam));
      results.push(await send(1));
      expect(results[0]).toMatchObject({ ok: false, responseCode: 451 });
      expect((results[0] as { response?: string }).response).toMatch(/1 requests per second/);
      expect(results[1]).toMatchObject({ ok: true });
    } finally {
      smtp.close();
      await limits.setLimits(defaultTeam, { rps: null });
    }
  });
});

describe('two API processes share one allowance', () => {
  /** The pause between one answer and the next request of the steady load. */
  const STEADY_GAP_MS = 200;
  const apis: NodeProcess[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((a) => a.stop()));
  });

  it('admits no more than one limit across both, and every 429 carries the headers', async () => {
    const ports = [await freePort(), await freePort()];
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    apis.push(
      ...(await Promise.all(
        ports.map((port) =>
          startApp('api', {
            REDIS_URL: stack.redis.url,
            REDIS_KEY_PREFIX: stack.prefix,
            LOG_LEVEL: 'warn',
            PORT: String(port),
            METRICS_PORT: '0',
            BOOTSTRAP_API_KEY: stack.key,
          }),
        ),
      )),
    );
    await limits.setLimits(defaultTeam, { rps: 2 });
    await limits.setLimits(other.team, { rps: 50, dailyQuota: null });
    const get = (i: number, key: string) =>
      fetch(`${urls[i % 2]}/api-keys`, { headers: { authorization: `Bearer ${key}` } });

    // 40 concurrent requests, round robin over the two processes, another team alongside
    await wholeAllowance(defaultTeam);
    await wholeAllowance(other.team);
    const from = await redisNowMs();
    const [burst, others] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, (_, i) => get(i, stack.key))),
      Promise.all(Array.from({ length: 10 }, (_, i) => get(i, other.key))),
    ]);
    const burstBounds = gcraBounds({ limit: 2, sent: 40, fromMs: from, toMs: await redisNowMs() });
    const ok = burst.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(burstBounds.min);
    expect(ok).toBeLessThanOrEqual(burstBounds.max);
    for (const r of burst.filter((x) => x.status === 429)) {
      for (const h of [...RATE_HEADERS, 'retry-after']) expect(r.headers.get(h), h).not.toBeNull();
      expect(((await r.json()) as { name: string }).name).toBe('rate_limit_exceeded');
    }
    expect(others.map((r) => r.status)).toEqual(others.map(() => 200));

    // then a steady load of at most 5 requests a second for 2 s, one after the other, each sent
    // 200 ms (the load's shape, not a wait for anything) after the previous answer.
    const steady: number[] = [];
    for (let i = 0; i < 10; i++) {
      steady.push((await get(i, stack.key)).status);
      await new Promise((r) => setTimeout(r, STEADY_GAP_MS));
    }
    const passed = steady.filter((s) => s === 200).length;
    // At most: counted with the burst, from its start, the GCRA's bound.
    expect(ok + passed).toBeLessThanOrEqual(
      gcraBounds({ limit: 2, sent: 50, fromMs: from, toMs: await redisNowMs() }).max,
    );
    // At least: an admission leaves `TAT ≤ its time + 1 s`, so a request T = 500 ms or more after
    // the last admission passes. The steps are ≥ 200 ms apart (a machine slower than that only
    // widens the gaps) and the first comes after every step of the burst: of any 3 requests in a
    // row after an admission, the third at the latest passes (3 × 200 ms > 500 ms), so at least
    // floor(10 / 3) do.
    expect(passed).toBeGreaterThanOrEqual(3);
    expect(steady.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  });
});

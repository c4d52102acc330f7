import { describe, expect, it } from 'vitest';
import { emailToDeliver, memoryDeliverDeps, MemorySoftBounceStreaks } from '@petrel/testing';
import { DELIVERY_STAGES, deliverEmail } from '../deliver-email.js';
import type { SendResult } from '../ports.js';
import type { DeliverDeps } from '../stage.js';

const TEAM = 'team-1';
const DAY = 86_400_000;
const soft: SendResult = {
  kind: 'soft_fail',
  code: 452,
  enhancedCode: '4.2.2',
  detail: '452 4.2.2 mailbox full',
};

function setup(settings = { emails: 3, days: 2 }) {
  const deps = memoryDeliverDeps({ retries: 2 });
  const streaks = new MemorySoftBounceStreaks();
  deps.outcomes.streaks = streaks;
  const withRule: DeliverDeps & { softBounces: NonNullable<DeliverDeps['softBounces']> } = {
    ...deps,
    softBounces: { settings, streaks },
  };
  return { deps: withRule, memory: deps };
}

let n = 0;
/** One email to `to`, sent on its last attempt (retries spent) so a soft fail is final. */
async function sendOnce(ctx: ReturnType<typeof setup>, to: string[], lastAttempt = true) {
  const email = emailToDeliver({ id: `em-${++n}`, content: { to } });
  ctx.memory.emails.put(email);
  return deliverEmail({ teamId: TEAM, emailId: email.id, attemptsMade: lastAttempt ? 2 : 0 }, ctx.deps);
}

const suppressed = (ctx: ReturnType<typeof setup>) =>
  [...ctx.memory.suppressions.suppressions.values()].map(({ email, origin, source_id }) => ({
    email,
    origin,
    source_id,
  }));

describe('the soft-bounces stage', () => {
  it('runs last, after the outcome is recorded', () => {
    expect(DELIVERY_STAGES.map((s) => s.name).slice(-2)).toEqual(['record-and-publish', 'soft-bounces']);
  });

  it('N Temporary bounces over M days suppress the address (origin bounce, the last email as source)', async () => {
    const ctx = setup();
    ctx.memory.smtp.answer(soft);
    expect(await sendOnce(ctx, ['full@x.test'])).toMatchObject({ kind: 'bounced', bounce: 'Temporary' });
    ctx.memory.clock.advance(DAY);
    await sendOnce(ctx, ['full@x.test']);
    ctx.memory.clock.advance(DAY - 1);
    // three emails, but the first only 2 days minus 1 ms ago: not yet
    await sendOnce(ctx, ['full@x.test']);
    expect(suppressed(ctx)).toEqual([]);
    ctx.memory.clock.advance(1);
    await sendOnce(ctx, ['full@x.test']);
    expect(suppressed(ctx)).toEqual([{ email: 'full@x.test', origin: 'bounce', source_id: `em-${n}` }]);
  });

  it('a delivered email ends the streak', async () => {
    const ctx = setup({ emails: 2, days: 0 });
    ctx.memory.smtp.answer(soft, { kind: 'sent', code: 250, response: '250 ok' }, soft);
    await sendOnce(ctx, ['flaky@x.test']);
    await sendOnce(ctx, ['flaky@x.test']);
    await sendOnce(ctx, ['flaky@x.test']);
    expect(suppressed(ctx)).toEqual([]);
  });

  it("a delivery ends its recipients' streaks in the outcome's own write, not with a write of its own", async () => {
    const ctx = setup({ emails: 2, days: 0 });
    const resets: string[][] = [];
    const { streaks } = ctx.deps.softBounces;
    ctx.deps.softBounces.streaks = {
      record: (...args) => streaks.record(...args),
      reset: async (_team, addresses) => void resets.push([...addresses]),
    };
    const recorded: unknown[] = [];
    const records = ctx.memory.outcomes;
    ctx.deps.outcomes = {
      setFields: (...args) => records.setFields(...args),
      recordEvents: (team, id, items, fields, also) => {
        recorded.push(also);
        return records.recordEvents(team, id, items, fields, also);
      },
    };
    ctx.memory.smtp
      .answer(soft, { kind: 'sent', code: 250, response: '250 ok' }, soft)
      .refuse({ address: 'gone@x.test', code: 550, permanent: true, detail: '550 no such user' });
    await sendOnce(ctx, ['flaky@x.test']);
    expect(await sendOnce(ctx, ['flaky@x.test', 'ok@x.test', 'gone@x.test'])).toEqual({ kind: 'delivered' });
    await sendOnce(ctx, ['flaky@x.test']);
    // the bounces' writes name nothing; the delivery's names the two recipients the message reached
    expect(recorded).toEqual([undefined, { endSoftBounceStreaks: ['flaky@x.test', 'ok@x.test'] }, undefined]);
    expect(resets).toEqual([]);
    expect(suppressed(ctx)).toEqual([{ email: 'gone@x.test', origin: 'bounce', source_id: `em-${n - 1}` }]);
  });

  it('a 4xx for one recipient while the others got it is final: it counts', async () => {
    const ctx = setup({ emails: 2, days: 0 });
    ctx.memory.smtp.refuse({ address: 'busy@x.test', code: 451, permanent: false, detail: '451 try later' });
    await sendOnce(ctx, ['ok@x.test', 'busy@x.test'], false);
    await sendOnce(ctx, ['ok@x.test', 'busy@x.test'], false);
    expect(suppressed(ctx).map((s) => s.email)).toEqual(['busy@x.test']);
  });

  it('a delay with retries left does not count', async () => {
    const ctx = setup({ emails: 2, days: 0 });
    ctx.memory.smtp.answer(soft);
    await sendOnce(ctx, ['slow@x.test'], false);
    await sendOnce(ctx, ['slow@x.test'], false);
    expect(suppressed(ctx)).toEqual([]);
  });

  it('off (emails 0): no streak is touched', async () => {
    const ctx = setup({ emails: 0, days: 0 });
    ctx.memory.smtp.answer(soft);
    for (let i = 0; i < 4; i++) await sendOnce(ctx, ['full@x.test']);
    expect(suppressed(ctx)).toEqual([]);
  });
});

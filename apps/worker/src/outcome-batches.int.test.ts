import { describe, expect, it } from 'vitest';
import { EmailsStore } from '@petrel/store';
import {
  emailEventsAt,
  newEmail,
  nextTeam,
  useStoreRedis,
} from '../../../packages/store/src/redis.fixture.js';
import { batchedOutcomes, batchedRecords, type BatchedOutcomeStore } from './outcome-batches.js';
import { outcomeWriter } from './outcome-writer.js';

const fx = useStoreRedis('outcome-batches');

/** The real store, with the calls the batches make counted (emails per call, by team). */
function counted(store: EmailsStore) {
  const calls: { teamId: string; emails: number }[] = [];
  const counting: BatchedOutcomeStore = {
    recordEvents: (teamId, ...rest) => {
      calls.push({ teamId, emails: 1 });
      return store.recordEvents(teamId, ...rest);
    },
    recordEventsMany: (teamId, many) => {
      calls.push({ teamId, emails: many.length });
      return store.recordEventsMany(teamId, many);
    },
    setFields: (...args) => store.setFields(...args),
    getForSend: (teamId, emailId) => {
      calls.push({ teamId, emails: 1 });
      return store.getForSend(teamId, emailId);
    },
    getManyForSend: (teamId, ids) => {
      calls.push({ teamId, emails: ids.length });
      return store.getManyForSend(teamId, ids);
    },
  };
  return { counting, calls };
}

/** Team `teamId` with queued emails `ids`; `delivered(id)` is the write a delivery makes. */
async function team(store: EmailsStore, ids: string[]) {
  const teamId = nextTeam();
  const { event, item } = emailEventsAt(teamId, Date.now());
  await store.stage(
    teamId,
    ids.map((id) => newEmail(id, event(id, 'email.queued'))),
    new Date(),
  );
  const delivered = (id: string) => [item(id, 'sent'), item(id, 'delivered')];
  const types = async (id: string) => (await store.events(teamId, id)).map((e) => e.type);
  return { teamId, delivered, types };
}

const newStore = () => new EmailsStore(fx.redis, fx.keys, 600_000, { statsRetentionMs: 600_000 });

describe('batchedOutcomes', () => {
  it('writes the outcomes of the emails that finish in one turn in one call, each caller getting its own reply', async () => {
    const store = newStore();
    const { counting, calls } = counted(store);
    const outcomes = batchedOutcomes(counting);
    const t = await team(store, ['a', 'b', 'c', 'broken']);
    await fx.redis.set(fx.keys.emailEvents(t.teamId, 'broken'), 'not a list');
    const ends = await Promise.allSettled(
      ['a', 'gone', 'broken', 'b', 'c'].map((id) =>
        outcomes.recordEvents(t.teamId, id, t.delivered(id), { attempts: '1' }),
      ),
    );
    expect(calls).toEqual([{ teamId: t.teamId, emails: 5 }]);
    expect(ends.map((e) => (e.status === 'fulfilled' ? e.value : (e.reason as Error).message))).toEqual([
      'moved',
      'missing',
      expect.stringMatching(/^WRONGTYPE/),
      'moved',
      'moved',
    ]);
    for (const id of ['a', 'b', 'c']) {
      expect(await t.types(id)).toEqual(['email.queued', 'email.sent', 'email.delivered']);
      expect(await store.get(t.teamId, id)).toMatchObject({ status: 'delivered', attempts: 1 });
    }
  });

  it('makes one call per team (each in its team’s slot) and the one-email call for an email alone', async () => {
    const store = newStore();
    const { counting, calls } = counted(store);
    const outcomes = batchedOutcomes(counting);
    const one = await team(store, ['x1', 'x2']);
    const two = await team(store, ['y1']);
    await Promise.all([
      outcomes.recordEvents(one.teamId, 'x1', one.delivered('x1')),
      outcomes.recordEvents(two.teamId, 'y1', two.delivered('y1')),
      outcomes.recordEvents(one.teamId, 'x2', one.delivered('x2')),
    ]);
    expect(calls).toEqual([
      { teamId: one.teamId, emails: 2 },
      { teamId: two.teamId, emails: 1 },
    ]);
    expect(await one.types('x2')).toEqual(['email.queued', 'email.sent', 'email.delivered']);
    expect(await two.types('y1')).toEqual(['email.queued', 'email.sent', 'email.delivered']);
  });

  it('under the outcome writer, a call that fails as a whole (Redis unavailable) is retried for each email, each recorded once', async () => {
    const store = newStore();
    const { counting, calls } = counted(store);
    let failures = 1;
    const flaky: BatchedOutcomeStore = {
      ...counting,
      recordEventsMany: (teamId, many) =>
        failures-- > 0
          ? Promise.reject(new Error('Connection is closed.'))
          : counting.recordEventsMany(teamId, many),
    };
    const sleeps: number[] = [];
    const outcomes = outcomeWriter(batchedOutcomes(flaky), {
      sleep: async (ms) => void sleeps.push(ms),
    });
    const t = await team(store, ['r1', 'r2', 'r3']);
    const ends = await Promise.all(
      ['r1', 'r2', 'r3'].map((id) => outcomes.recordEvents(t.teamId, id, t.delivered(id))),
    );
    expect(ends).toEqual(['moved', 'moved', 'moved']);
    // each email waited its own first pause; the retries, asked in one turn, went in one call
    expect(sleeps).toEqual([100, 100, 100]);
    expect(calls).toEqual([{ teamId: t.teamId, emails: 3 }]);
    for (const id of ['r1', 'r2', 'r3'])
      expect(await t.types(id)).toEqual(['email.queued', 'email.sent', 'email.delivered']);
  });

  it('reads the records of the emails that start in one turn in one call, each as getForSend reads it', async () => {
    const store = newStore();
    const { counting, calls } = counted(store);
    const records = batchedRecords(counting);
    const t = await team(store, ['s1', 's2']);
    const ids = ['s2', 'gone', 's1'];
    const read = await Promise.all(ids.map((id) => records.getForSend(t.teamId, id)));
    expect(calls).toEqual([{ teamId: t.teamId, emails: 3 }]);
    expect(read).toEqual(await Promise.all(ids.map((id) => store.getForSend(t.teamId, id))));
    expect(read.map((r) => r?.record.id ?? null)).toEqual(['s2', null, 's1']);
  });
});

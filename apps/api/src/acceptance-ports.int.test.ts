/**
 * The three-step commit of acceptance against a real Redis (a Redis Cluster in the
 * `integration-cluster` project): records, jobs and the stored response after a commit, nothing
 * left in the outbox; and what a crash after the first step leaves, finished by the outbox relay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendGroupJobId } from '@petrel/contracts';
import {
  acceptPreparer,
  commitAcceptance,
  newEmailId,
  relayOutbox,
  type AcceptCommitPorts,
  type AcceptedEmail,
} from '@petrel/core';
import { EmailsStore, IdempotencyStore, OutboxStore, requestFingerprint, WatchdogStore } from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import type { EmailEvent } from '@petrel/contracts';
import {
  acceptedEmail,
  MemoryAttachmentFetcher,
  MemoryTopics,
  MemoryTemplates,
  RecordingOutboxObserver,
} from '@petrel/testing';
import { useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { acceptancePorts } from '@petrel/runtime';

const fx = useStoreRedis('acceptance');
let queues: SendQueues;
let stores: { emails: EmailsStore; idempotency: IdempotencyStore; outbox: OutboxStore };

beforeAll(async () => {
  const idempotency = new IdempotencyStore(fx.redis, fx.keys);
  stores = {
    emails: new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 }),
    idempotency,
    outbox: new OutboxStore(fx.redis, fx.keys, idempotency),
  };
  queues = new SendQueues(fx.redis, { prefix: fx.keys.bullPrefix(), shards: 3 });
  await queues.ready();
});
afterAll(async () => {
  await queues?.close();
});

function ports() {
  return acceptancePorts({
    ...stores,
    queues,
    preparer: acceptPreparer({
      templates: new MemoryTemplates(),
      attachments: new MemoryAttachmentFetcher(),
      topics: new MemoryTopics(),
    }),
  });
}

function accepted(teamId: string, delayMs = 0): AcceptedEmail {
  const event: EmailEvent = {
    id: newEmailId(),
    type: 'email.queued',
    created_at: new Date().toISOString(),
    teamId,
    data: {},
  };
  return acceptedEmail(newEmailId(), event, delayMs);
}

const jobState = async (emailId: string) =>
  (await queues.queueOf('send', emailId).getJob(emailId))?.getState();
/** The group job named by its first email id, in that email's shard. */
const groupJob = (first: string) => queues.queueOf('send', first).getJob(sendGroupJobId(first));
const jobTotal = async () =>
  (await Promise.all(queues.queues.map((q) => q.getJobCountByTypes('waiting', 'delayed')))).reduce(
    (a, b) => a + b,
    0,
  );

/** The outbox relay's ports over the stores and queues, for one team. */
/** The relay's ports for one team, on a clock that reads `nowMs`. */
const relayPortsOf = (teamId: string, nowMs: number) => ({
  teams: { teamIds: async () => [teamId] },
  outbox: stores.outbox,
  queues,
  observer: new RecordingOutboxObserver(),
  clock: { now: () => nowMs },
});

describe('acceptance commit (records → jobs → outbox cleared + response stored)', () => {
  it('leaves every email with its record and a job — one group job for those due now, its own delayed one when scheduled — the response stored, the outbox empty', async () => {
    const teamId = 'team-commit';
    const fp = requestFingerprint('POST', '/emails/batch', { n: 1 });
    const claim = await ports().claim(teamId, 'key-1', fp);
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    const emails = [accepted(teamId), accepted(teamId), accepted(teamId, 3_600_000)];

    await ports().commit(teamId, emails, { token: claim.token, status: 200, body: '{"data":[]}' });

    for (const e of emails) expect((await stores.emails.get(teamId, e.id))?.status).toBe(e.status);
    const group = await groupJob(emails[0]!.id);
    expect(await group?.getState()).toBe('waiting');
    expect(group?.data).toEqual({ v: 1, teamId, emailIds: [emails[0]!.id, emails[1]!.id] });
    expect(await jobState(emails[0]!.id)).toBeUndefined();
    expect(await jobState(emails[1]!.id)).toBeUndefined();
    expect(await jobState(emails[2]!.id)).toBe('delayed');
    // the records name their group (the watchdog looks for the group's job by it)
    const w = new WatchdogStore(fx.redis, fx.keys, stores.emails);
    expect((await w.get(teamId, emails[1]!.id))?.group).toBe(emails[0]!.id);
    expect((await w.get(teamId, emails[2]!.id))?.group).toBeUndefined();
    expect(await stores.outbox.size(teamId)).toBe(0);
    expect(await ports().lookup(teamId, 'key-1', fp)).toEqual({ status: 200, body: '{"data":[]}' });

    // the same request committed again (a retry that took over the claim): still the same two jobs
    await ports().commit(teamId, emails, undefined);
    expect(await jobTotal()).toBe(2);
    expect(await stores.outbox.size(teamId)).toBe(0);
  });

  it('a crash after the first step: records and outbox entries, no job, no response; the relay enqueues them once', async () => {
    const teamId = 'team-crash';
    const claim = await stores.idempotency.claim(teamId, 'key-2', 'fp');
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    const now = Date.now();
    const [soon, later] = [accepted(teamId), accepted(teamId, 3_600_000)];
    // step 1 alone, as a process killed right after it leaves things
    await stores.emails.stage(
      teamId,
      [soon, later].map((a) => ({
        id: a.id,
        content: a.content,
        status: a.status,
        lane: 'send' as const,
        dueMs: a.delayMs > 0 ? now + a.delayMs : 0,
        messageId: a.messageId,
        event: a.event,
      })),
      new Date(now),
    );
    expect(await jobState(soon.id)).toBeUndefined();
    expect(await stores.outbox.size(teamId)).toBe(2);
    expect(await stores.idempotency.lookup(teamId, 'key-2', 'fp')).toEqual({ outcome: 'in_flight' });

    // within the grace the relay leaves the entries to the request that wrote them
    expect(await relayOutbox(relayPortsOf(teamId, now + 1_000), { graceMs: 30_000 })).toEqual({
      relayed: 0,
      failedTeams: 0,
    });
    const relayPorts = relayPortsOf(teamId, now + 31_000);
    expect(await relayOutbox(relayPorts, { graceMs: 30_000 })).toEqual({
      relayed: 2,
      failedTeams: 0,
    });
    expect(await jobState(soon.id)).toBe('waiting');
    const delayed = await queues.queueOf('send', later.id).getJob(later.id);
    expect(await delayed?.getState()).toBe('delayed');
    // due when the email was scheduled for, not an hour after the relay ran
    expect(delayed!.timestamp + delayed!.opts.delay!).toBeLessThanOrEqual(now + 3_600_000 + 1_000);
    expect(await stores.outbox.size(teamId)).toBe(0);

    // idempotent: the entries back (a second relay racing the first), relayed again: one job each
    await fx.redis.zadd(fx.keys.outbox(teamId), now, `send:0:${soon.id}`);
    await relayOutbox(relayPorts, { graceMs: 30_000 });
    expect(await relayOutbox(relayPorts, { graceMs: 30_000 })).toMatchObject({
      relayed: 0,
    });
    expect(await jobTotal()).toBe(4); // 2 jobs of the first test (a group, a delayed one), 2 here
  });

  it('a crash after the first step of a batch: one outbox entry for the emails due now, and the relay makes their one group job', async () => {
    const teamId = 'team-crash-group';
    const now = Date.now();
    const emails = [accepted(teamId), accepted(teamId), accepted(teamId), accepted(teamId, 3_600_000)];
    const before = await jobTotal();
    // step 1 alone, as core's commit writes it (`stage` of the acceptance ports), then a crash
    const staged: { stage?: Parameters<AcceptCommitPorts['stage']> } = {};
    await commitAcceptance(
      { teamId, emails, completion: undefined },
      {
        clock: { now: () => now },
        stage: async (...args) => {
          staged.stage = args;
          await stores.emails.stage(...args);
          throw new Error('killed after step 1');
        },
        enqueue: () => Promise.reject(new Error('never reached')),
        clear: () => Promise.reject(new Error('never reached')),
      },
    ).catch(() => undefined);
    expect(staged.stage).toBeDefined();
    // one entry for the group of three, one for the scheduled email
    expect(await stores.outbox.size(teamId)).toBe(2);

    expect(await relayOutbox(relayPortsOf(teamId, now + 31_000), { graceMs: 30_000 })).toEqual({
      relayed: 4,
      failedTeams: 0,
    });
    const group = await groupJob(emails[0]!.id);
    expect(group?.data).toEqual({ v: 1, teamId, emailIds: emails.slice(0, 3).map((e) => e.id) });
    for (const e of emails.slice(0, 3)) expect(await jobState(e.id)).toBeUndefined();
    expect(await jobState(emails[3]!.id)).toBe('delayed');
    expect(await stores.outbox.size(teamId)).toBe(0);
    expect(await jobTotal()).toBe(before + 2);
  });
});

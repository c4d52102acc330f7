import { describe, expect, it } from 'vitest';
import {
  isGroupSpec,
  type EmailJobSpec,
  type SendJob,
  type SendJobSpec,
  type SendQueueJob,
} from '@petrel/contracts';
import type { Job } from '@petrel/queue';
import { UnrecoverableError } from '@petrel/queue';
import { emailToDeliver, memoryDeliverDeps } from '@petrel/testing';
import { deliverEmailProcessor } from './deliver-email.processor.js';
import { deliveryLimiter, type DeliveryTurn } from './delivery-limiter.js';
import type { GroupDelivery } from './group-delivery.js';
import { GroupLockLostError } from './group-lock.js';
import { SoftFailError } from './job-result.js';
import { smtpRetryBackoff } from './retry-backoff.js';

const email = emailToDeliver();
const job = (data: unknown, attemptsMade = 0) => ({ id: email.id, data, attemptsMade }) as Job<SendJob>;
const sendJob = { v: 1, teamId: email.teamId, emailId: email.id };

function processor() {
  const deps = memoryDeliverDeps({ retries: 2 });
  deps.emails.put(email);
  return { deps, process: deliverEmailProcessor(deps) };
}

describe('deliverEmailProcessor', () => {
  it('runs deliver-email for the job and completes with the outcome', async () => {
    const { deps, process } = processor();
    await expect(process(job(sendJob))).resolves.toBe('delivered');
    expect(deps.smtp.sent).toHaveLength(1);
  });

  it('passes attemptsMade through: the last retry bounces and completes', async () => {
    const { deps, process } = processor();
    deps.smtp.answer({ kind: 'soft_fail', code: 451, detail: '451 later' });
    await expect(process(job(sendJob, 0))).rejects.toBeInstanceOf(SoftFailError);
    await expect(process(job(sendJob, 2))).resolves.toBe('bounced');
  });

  it('a hard fail is unrecoverable', async () => {
    const { deps, process } = processor();
    deps.smtp.answer({ kind: 'hard_fail', code: 550, detail: '550 no such user' });
    await expect(process(job(sendJob))).rejects.toBeInstanceOf(UnrecoverableError);
  });

  it('refuses a payload that is not a v1 send job', async () => {
    const { deps, process } = processor();
    await expect(process(job({ v: 2, teamId: email.teamId, emailId: email.id }))).rejects.toThrow();
    expect(deps.smtp.sent).toHaveLength(0);
  });
});

describe('deliverEmailProcessor: a group job (the emails of one request due at once)', () => {
  const teamId = email.teamId;
  const ids = ['grp-ok', 'grp-soft', 'grp-hard'];
  const to: Record<string, string> = {
    'grp-ok': 'ada@example.test',
    'grp-soft': 'later@example.test',
    'grp-hard': 'nobody@example.test',
  };

  /** A group processor over memory ports; `own` are the jobs handed over, by email id. */
  function groupProcessor(
    opts: {
      limit?: number;
      own?: Iterable<string>;
      handOverAll?: boolean;
      /** The lock checks that answer true (then the lock is gone); every one by default. */
      lockHeldFor?: number;
    } = {},
  ) {
    const deps = memoryDeliverDeps({ retries: 3 });
    for (const id of ids) deps.emails.put(emailToDeliver({ id, content: { to: [to[id]!] } }));
    deps.smtp.refuse(
      { address: 'later@example.test', code: 451, permanent: false, detail: '451 4.2.1 try later' },
      { address: 'nobody@example.test', code: 550, permanent: true, detail: '550 5.1.1 no such user' },
    );
    const own = new Map<string, SendJobSpec>(
      [...(opts.own ?? [])].map((id) => [id, { teamId, emailId: id }]),
    );
    let running = 0;
    const peak = { running: 0 };
    const lockChecks: (string | undefined)[] = [];
    const turns: DeliveryTurn[] = [];
    const limit = deliveryLimiter(opts.limit ?? 8);
    const group: GroupDelivery = {
      // counts the deliveries running at once through the shared bound, and the turn each asked for
      limit: (fn, turn) => {
        turns.push(turn ?? 'first');
        return limit(async () => {
          peak.running = Math.max(peak.running, ++running);
          try {
            return await fn();
          } finally {
            running--;
          }
        }, turn);
      },
      handOver: async (jobs) => {
        for (const j of jobs) if (!isGroupSpec(j) && !own.has(j.emailId)) own.set(j.emailId, j);
      },
      hasOwnJob: async (emailId) => own.has(emailId),
      holdsLock: async (_job, token) => {
        lockChecks.push(token);
        return lockChecks.length <= (opts.lockHeldFor ?? Infinity);
      },
      retryDelay: (attemptsMade, err) => smtpRetryBackoff([60, 300, 900], 1)(attemptsMade, undefined, err),
      startAhead: 2,
      handOverAll: opts.handOverAll ?? false,
      lockDurationMs: 30_000,
    };
    return { deps, own, peak, lockChecks, turns, process: deliverEmailProcessor(deps, undefined, group) };
  }
  /** A group job whose progress writes are kept (BullMQ's `updateProgress`), in order. */
  const groupJob = (over: Partial<Job> = {}) => {
    const progress: number[] = [];
    return Object.assign(
      {
        id: 'grp_grp-ok',
        data: { v: 1, teamId, emailIds: ids },
        attemptsMade: 0,
        stalledCounter: 0,
        progress: 0,
        progressWrites: progress,
        async updateProgress(this: { progress: number }, p: number) {
          progress.push(p);
          this.progress = p;
        },
      },
      over,
    ) as unknown as Job<SendQueueJob> & { progressWrites: number[] };
  };

  it('delivers, hands a temporary failure to its own job on the ladder’s next delay, ends a permanent bounce', async () => {
    const { deps, own, process } = groupProcessor();
    await expect(process(groupJob())).resolves.toEqual({ delivered: 1, handed_over: 1, rejected: 1 });
    expect(deps.emails.get(teamId, 'grp-ok')?.status).toBe('delivered');
    expect(deps.emails.get(teamId, 'grp-soft')?.status).toBe('delivery_delayed');
    expect(deps.emails.get(teamId, 'grp-hard')?.status).toBe('bounced');
    // one attempt made: the own job continues the ladder at its second step (60 s, jitter upward)
    const soft = own.get('grp-soft') as EmailJobSpec;
    expect(soft).toMatchObject({ teamId, emailId: 'grp-soft', attemptsBefore: 1 });
    expect(soft.delayMs).toBeGreaterThanOrEqual(60_000);
    expect(soft.delayMs).toBeLessThan(300_000);
    expect([...own.keys()]).toEqual(['grp-soft']);
  });

  it('the own job continues where the group left: its next failure waits the third step, and its retries end on the ladder', async () => {
    const { deps, own, process } = groupProcessor();
    await process(groupJob());
    const soft = own.get('grp-soft') as EmailJobSpec;
    const backoff = smtpRetryBackoff([60, 300, 900], 1);
    const ownJob = { id: 'grp-soft', data: { v: 1, ...soft }, attemptsMade: 0 } as Job<SendQueueJob>;
    await expect(process(ownJob)).rejects.toBeInstanceOf(SoftFailError);
    // BullMQ's attemptsMade of the own job is 1 after its first failure; the strategy adds the group's
    const wait = backoff(1, undefined, new Error('451'), ownJob);
    expect(wait).toBeGreaterThanOrEqual(300_000);
    expect(wait).toBeLessThan(900_000);
    // retries = 3: the attempt after three failures bounces, as it would have in one job
    await expect(process({ ...ownJob, attemptsMade: 2 } as Job<SendQueueJob>)).resolves.toBe('bounced');
    expect(deps.emails.get(teamId, 'grp-soft')?.status).toBe('bounced');
  });

  it('asks the lane’s bound for a retry’s turn for an own job that made an attempt (in its group or in its job), a first attempt’s for the rest', async () => {
    const { own, turns, process } = groupProcessor();
    await process(groupJob());
    // a group runs first attempts only
    expect(turns).toEqual(['first', 'first', 'first']);
    const ownJob = (data: object, attemptsMade: number) =>
      ({ id: 'grp-soft', data: { v: 1, ...data }, attemptsMade }) as Job<SendQueueJob>;
    const handedOver = own.get('grp-soft') as EmailJobSpec;
    turns.length = 0;
    // handed over by its group after one attempt (attemptsBefore 1), BullMQ's count still 0
    await process(ownJob(handedOver, 0)).catch(() => undefined);
    // an own job's own attempt made (BullMQ's attemptsMade), nothing before it
    await process(ownJob({ teamId, emailId: 'grp-soft' }, 1)).catch(() => undefined);
    // an own job's first attempt (a request of one email, a scheduled email)
    await process(ownJob({ teamId, emailId: 'grp-ok' }, 0));
    expect(turns).toEqual(['retry', 'retry', 'first']);
  });

  it('run again (a stalled group taken over): sends none of the emails delivered, bounced or handed over', async () => {
    const { deps, own, process } = groupProcessor();
    await process(groupJob());
    const sent = deps.smtp.sent.length;
    expect(sent).toBe(3);
    await expect(process(groupJob({ stalledCounter: 1 }))).resolves.toEqual({
      skipped: 2,
      handed_over: 1,
    });
    expect(deps.smtp.sent).toHaveLength(sent);
    expect(own.size).toBe(1);
  });

  it('a re-run sends an email the first run did not reach', async () => {
    const { deps, process } = groupProcessor({ own: [] });
    deps.emails.put(emailToDeliver({ id: 'grp-ok', status: 'delivered', content: { to: [to['grp-ok']!] } }));
    await expect(
      process(groupJob({ attemptsMade: 1, data: { v: 1, teamId, emailIds: ['grp-ok', 'grp-soft'] } })),
    ).resolves.toEqual({ skipped: 1, handed_over: 1 });
    expect(deps.smtp.sent.map((m) => m.envelope.to)).toEqual([['later@example.test']]);
  });

  it('runs its emails through the lane’s bound: never more deliveries at once than the limit', async () => {
    const { peak, process } = groupProcessor({ limit: 2 });
    const many = Array.from({ length: 10 }, (_, i) => `n${i}`);
    await process(groupJob({ data: { v: 1, teamId, emailIds: [...ids, ...many] } }));
    expect(peak.running).toBeLessThanOrEqual(2);
    expect(peak.running).toBe(2);
  });

  it('marks how many of its emails may have started before they start, a few at a time; never lowers the mark', async () => {
    const { deps, process } = groupProcessor({ limit: 2 });
    const job = groupJob();
    await process(job);
    // startAhead 2 over 3 emails: written before the 1st (2) and before the 3rd (3)
    expect(job.progressWrites).toEqual([2, 3]);
    expect(deps.smtp.sent).toHaveLength(3);
    // a re-run starts from the mark it finds: nothing lower is written
    const again = groupJob({ stalledCounter: 1, progress: 3 } as Partial<Job>);
    await process(again);
    expect(again.progressWrites).toEqual([]);
  });

  it('checks its lock with the worker’s token before each email, and once it is lost starts none of the others and fails the attempt', async () => {
    const { deps, own, lockChecks, process } = groupProcessor({ limit: 1, lockHeldFor: 1 });
    await expect(process(groupJob(), 'token-1')).rejects.toBeInstanceOf(GroupLockLostError);
    // the first email started under the lock; the second found it gone; the third read nothing
    expect(deps.smtp.sent.map((m) => m.envelope.to)).toEqual([['ada@example.test']]);
    expect(lockChecks).toEqual(['token-1', 'token-1']);
    expect(deps.emails.get(teamId, 'grp-soft')?.status).toBe('queued');
    expect(own.size).toBe(0);
  });

  it('an own job that waited for its slot for half the lock’s duration reads its lock first: sends nothing once it is lost', async () => {
    const { deps, lockChecks, process } = groupProcessor({ lockHeldFor: 0 });
    const ownJob = (processedOn: number) =>
      ({
        id: 'grp-ok',
        data: { v: 1, teamId, emailId: 'grp-ok' },
        attemptsMade: 0,
        processedOn,
      }) as Job<SendQueueJob>;
    // fetched 15 s ago (half of 30 s): the lock may have expired and the job gone to another worker
    await expect(process(ownJob(Date.now() - 15_000), 'token-2')).rejects.toBeInstanceOf(GroupLockLostError);
    expect(lockChecks).toEqual(['token-2']);
    expect(deps.smtp.sent).toEqual([]);
    expect(deps.emails.get(teamId, 'grp-ok')?.status).toBe('queued');
    // fetched just now: its lock cannot have expired, so no read, and it is sent
    await process(ownJob(Date.now()), 'token-3');
    expect(lockChecks).toEqual(['token-2']);
    expect(deps.smtp.sent.map((m) => m.envelope.to)).toEqual([['ada@example.test']]);
  });

  it('with a send rate (BullMQ limits jobs, not emails): hands every email over to its own job, sends none itself', async () => {
    const { deps, own, process } = groupProcessor({ handOverAll: true });
    await expect(process(groupJob())).resolves.toEqual({ handed_over: 3 });
    expect([...own.keys()]).toEqual(ids);
    expect(deps.smtp.sent).toHaveLength(0);
  });

  it('a hand-over that fails fails the job only once every other email of the group has ended', async () => {
    let done = 0;
    const fails = groupProcessor({ limit: 1 });
    const proc = deliverEmailProcessor(fails.deps, undefined, {
      limit: deliveryLimiter(1),
      handOver: () => Promise.reject(new Error('queue unavailable')),
      hasOwnJob: async () => false,
      holdsLock: async () => true,
      lockDurationMs: 30_000,
      retryDelay: () => 60_000,
      startAhead: 2,
      handOverAll: false,
    });
    await expect(
      proc(groupJob()).finally(() => {
        done = fails.deps.smtp.sent.length;
      }),
    ).rejects.toThrow('queue unavailable');
    // the email after the failed hand-over (grp-hard) was still sent before the job failed
    expect(done).toBe(3);
  });

  it('refuses a malformed group payload, naming the field', async () => {
    const { deps, process } = groupProcessor();
    await expect(process(groupJob({ data: { v: 1, teamId, emailIds: [] } }))).rejects.toThrow(/emailIds/);
    expect(deps.smtp.sent).toHaveLength(0);
  });
});

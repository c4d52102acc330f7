/**
 * BullMQ adapter for the send lanes. Each lane is QUEUE_SHARDS queues (contracts'
 * `sendQueueNames`), each its own hash slot, so on a Redis Cluster a lane spreads over the
 * masters instead of living on the one that serves its slot. An email's job goes to the shard
 * of its id (`shardOf`), so it can be found again to cancel or reschedule it; every worker
 * process consumes every shard.
 *
 * While QUEUE_SHARDS changes, the previous layout (QUEUE_SHARDS_PREVIOUS) stays open beside the
 * current one: new jobs go to the current shards only, workers also consume the previous ones
 * and cancel/reschedule also look there, until those queues are drained (`previousPending`).
 */
import { Job, Queue, Worker, type JobsOptions, type Processor, type WorkerOptions } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import {
  isGroupSpec,
  SEND_LANES,
  sendGroupJobId,
  sendQueueNames,
  sendQueueOf,
  type QueueLayout,
  type SendJobSpec,
  type SendLane,
  type SendQueueJob,
} from '@petrel/contracts';
import { holdsJobLock } from './job-lock.js';

/** One Redis server or a Redis Cluster (the union packages/store names `RedisClient`). */
export type QueueConnection = Redis | Cluster;

/** Name of the custom backoff strategy the send workers implement. */
const SMTP_BACKOFF = 'smtp-retry';

/** The shard layouts of the send queues. */
export interface ShardOptions {
  /** QUEUE_SHARDS: queues per lane (default 1). */
  shards?: number;
  /** QUEUE_SHARDS_PREVIOUS: the layout being left, still consumed and searched until drained. */
  previousShards?: QueueLayout;
}

export interface SendQueueOptions extends ShardOptions {
  /** BullMQ key prefix (default `bull`); tests use their own to stay apart. */
  prefix?: string;
}

export type { SendJobSpec };

/**
 * A safety cap only: the worker decides when retries are spent (its retry ladder), so the API
 * that enqueues never needs to know the ladder.
 */
const MAX_SEND_ATTEMPTS = 1000;

function sendJobOptions(): JobsOptions {
  return {
    attempts: MAX_SEND_ATTEMPTS,
    backoff: { type: SMTP_BACKOFF },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
  };
}

/** The job states the jobs gauge reports. */
const JOB_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized'] as const;
/** The states of a job that may still make an attempt: a queue without any is drained. */
const PENDING_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/** The layouts a process serves: the current one, then the previous one while it drains. */
function layouts(opts: ShardOptions): QueueLayout[] {
  const current = opts.shards ?? 1;
  const previous = opts.previousShards;
  return previous === undefined || previous === current ? [current] : [current, previous];
}

type Counts = Record<string, number>;

function addCounts(into: Counts, counts: Counts): Counts {
  for (const [state, n] of Object.entries(counts)) into[state] = (into[state] ?? 0) + n;
  return into;
}

export class SendQueues {
  /** Every queue opened: each lane's current shards, then those of the previous layout. */
  readonly queues: readonly Queue<SendQueueJob>[];
  private readonly byName = new Map<string, Queue<SendQueueJob>>();
  private readonly layouts: QueueLayout[];
  private readonly jobOptions: JobsOptions = sendJobOptions();
  private readonly connection: QueueConnection;

  constructor(connection: QueueConnection, opts: SendQueueOptions = {}) {
    this.connection = connection;
    this.layouts = layouts(opts);
    for (const layout of this.layouts) {
      for (const lane of SEND_LANES) {
        for (const name of sendQueueNames(lane, layout)) {
          const queue = new Queue<SendQueueJob>(name, {
            connection,
            prefix: opts.prefix,
            defaultJobOptions: this.jobOptions,
          });
          // BullMQ repeats every error of the shared connection on each queue, and prints one
          // no listener takes to stderr; the connection's owner logs them once (createRedis).
          queue.on('error', () => undefined);
          this.byName.set(name, queue);
        }
      }
    }
    this.queues = [...this.byName.values()];
  }

  /** Resolves once the connection is ready and BullMQ's scripts are loaded. */
  async ready(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.waitUntilReady()));
  }

  /** The queue that holds (or will hold) the job of `emailId` on `lane`, in the current layout. */
  queueOf(lane: SendLane, emailId: string): Queue<SendQueueJob> {
    return this.queue(sendQueueOf(lane, emailId, this.layouts[0]!));
  }

  private queue(name: string): Queue<SendQueueJob> {
    return this.byName.get(name)!;
  }

  /** The queues of `lane` that may hold the job of `emailId`: its shard in each layout. */
  private candidates(lane: SendLane, emailId: string): Queue<SendQueueJob>[] {
    return this.layouts.map((layout) => this.queue(sendQueueOf(lane, emailId, layout)));
  }

  /**
   * Queue the jobs of `jobs`, each on its shard: one `addBulk` per shard, the shards in parallel.
   * An email's own job has the email id as job id, a group's job `sendGroupJobId` of its first
   * email id, in that email's shard. A job id that exists already (waiting, delayed, active or
   * failed) keeps its job unchanged — BullMQ adds nothing for a job id it holds
   * (https://docs.bullmq.io/guide/jobs/job-ids) — so enqueueing again (a retried acceptance, the
   * outbox relay) never makes a second job. Resolves once every job is stored; a failure may
   * leave some shards written (run it again: the ones written are kept as they are).
   */
  async enqueue(lane: SendLane, jobs: readonly SendJobSpec[]): Promise<void> {
    const byQueue = new Map<Queue<SendQueueJob>, Parameters<Queue<SendQueueJob>['addBulk']>[0]>();
    for (const j of jobs) {
      const group = isGroupSpec(j);
      const key = group ? j.emailIds[0]! : j.emailId;
      const queue = this.queueOf(lane, key);
      const bulk = group
        ? {
            name: 'send-group',
            data: { v: 1 as const, teamId: j.teamId, emailIds: [...j.emailIds] },
            opts: { jobId: sendGroupJobId(key) },
          }
        : {
            name: 'send',
            data: {
              v: 1 as const,
              teamId: j.teamId,
              emailId: key,
              ...(j.attemptsBefore ? { attemptsBefore: j.attemptsBefore } : {}),
            },
            opts: { jobId: key, ...(j.delayMs && j.delayMs > 0 ? { delay: j.delayMs } : {}) },
          };
      const list = byQueue.get(queue);
      if (list) list.push(bulk);
      else byQueue.set(queue, [bulk]);
    }
    await Promise.all([...byQueue].map(([queue, list]) => queue.addBulk(list)));
  }

  /**
   * The job `jobId` (default: the email's own, id = `emailId`) in the shard of `emailId` on
   * `lane`, and its queue: the current layout, else the previous one.
   */
  private async locate(
    lane: SendLane,
    emailId: string,
    jobId = emailId,
  ): Promise<{ queue: Queue<SendQueueJob>; job: Job<SendQueueJob> } | undefined> {
    for (const queue of this.candidates(lane, emailId)) {
      const job = await Job.fromId<SendQueueJob>(queue, jobId);
      if (job) return { queue, job };
    }
    return undefined;
  }

  /** Whether `emailId` has a job of its own on `lane` (in any state). */
  async hasOwnJob(lane: SendLane, emailId: string): Promise<boolean> {
    return (await this.locate(lane, emailId)) !== undefined;
  }

  /**
   * Whether the worker that got `token` with `job` (a job of one of these queues) still holds
   * its lock (job-lock.ts); false without a token or for a queue this layout does not open.
   */
  async holdsLock(job: Pick<Job, 'id' | 'queueName'>, token: string | undefined): Promise<boolean> {
    const queue = this.byName.get(job.queueName);
    if (token === undefined || job.id === undefined || !queue) return false;
    return holdsJobLock(this.connection, queue, job.id, token);
  }

  /**
   * Remove a waiting or delayed job (cancel of a scheduled email); false when there is none, or
   * when it is running (BullMQ leaves a locked job alone).
   */
  async remove(lane: SendLane, emailId: string): Promise<boolean> {
    const found = await this.locate(lane, emailId);
    // BullMQ's remove answers 1 for an id it does not hold, hence the lookup first.
    return found !== undefined && (await found.queue.remove(emailId)) === 1;
  }

  /** Move a delayed job to fire `delayMs` from now (reschedule); false when there is none. */
  async reschedule(lane: SendLane, emailId: string, delayMs: number): Promise<boolean> {
    const found = await this.locate(lane, emailId);
    if (!found) return false;
    await found.job.changeDelay(Math.max(0, delayMs));
    return true;
  }

  /**
   * Where the job of `emailId` on `lane` stands (its shard in either layout): BullMQ's state, and
   * the reason of a failed job; `missing` when no queue holds it (for the stuck-email watchdog).
   * With `group` (the first email id of the group the email was accepted in), the group's job.
   */
  async jobState(
    lane: SendLane,
    emailId: string,
    group?: string,
  ): Promise<{ state: string; failedReason?: string }> {
    const jobId = group === undefined ? emailId : sendGroupJobId(group);
    const found = await this.locate(lane, group ?? emailId, jobId);
    if (!found) return { state: 'missing' };
    const state = await found.job.getState();
    if (state === 'unknown') return { state: 'missing' };
    if (state !== 'failed') return { state };
    // a group failed (by the stall check): an email past its started mark (the job's progress,
    // apps/worker `startedMark`) never started, so it is as if its job were lost
    if (group !== undefined && !mayHaveStarted(found.job, emailId)) return { state: 'missing' };
    // read again: the job may have failed after it was read (its reason was not there yet)
    const failed = await Job.fromId<SendQueueJob>(found.queue, jobId);
    return { state, failedReason: failed?.failedReason ?? found.job.failedReason };
  }

  /** Jobs of each lane by state, summed over every queue of the lane (both layouts), for the gauge. */
  async counts(): Promise<Record<SendLane, Counts>> {
    const entries = await Promise.all(
      SEND_LANES.map(async (lane) => {
        const names = this.layouts.flatMap((layout) => sendQueueNames(lane, layout));
        const perQueue = await Promise.all(names.map((n) => this.queue(n).getJobCounts(...JOB_STATES)));
        return [lane, perQueue.reduce(addCounts, {})] as const;
      }),
    );
    return Object.fromEntries(entries) as Record<SendLane, Counts>;
  }

  /**
   * Jobs of `lane` waiting or running now, over its current shards: the broadcast fan-out's
   * pacing signal (core broadcasts/pacing.ts). One BullMQ count script per shard, each on its
   * queue's own hash slot; delayed jobs (retries, scheduled emails) are not pressure.
   */
  async busy(lane: SendLane): Promise<number> {
    const names = sendQueueNames(lane, this.layouts[0]!);
    const counts = await Promise.all(
      names.map((n) => this.queue(n).getJobCountByTypes('waiting', 'active', 'prioritized')),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  /**
   * Jobs that may still make an attempt in the previous layout's queues (every lane), or
   * undefined when no layout is being left. Zero means QUEUE_SHARDS_PREVIOUS can be removed.
   */
  async previousPending(): Promise<number | undefined> {
    const previous = this.layouts[1];
    if (previous === undefined) return undefined;
    const names = SEND_LANES.flatMap((lane) => sendQueueNames(lane, previous));
    const counts = await Promise.all(names.map((n) => this.queue(n).getJobCounts(...PENDING_STATES)));
    return counts.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close()));
  }
}

/** Whether `emailId` of group job `job` may have started: its place is before the job's started mark. */
function mayHaveStarted(job: Job<SendQueueJob>, emailId: string): boolean {
  const ids = 'emailIds' in job.data ? job.data.emailIds : [];
  const mark = typeof job.progress === 'number' ? job.progress : 0;
  return ids.indexOf(emailId) < mark;
}

/** `total` split over `parts` as evenly as whole numbers allow, each at least 1. */
export function splitEvenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  return Array.from({ length: parts }, (_, i) => Math.max(1, base + (i < total % parts ? 1 : 0)));
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The limiter of each of `queues` queues such that together they start `perSecond` jobs a
 * second: `perSecond / queues` each, written as `max` jobs per `duration` ms in whole numbers
 * (e.g. 10/s over 4 queues: 5 per 2 s each). BullMQ's limiter is per queue, shared by every
 * worker of that queue (https://docs.bullmq.io/guide/rate-limiting).
 */
export function shardLimiter(perSecond: number, queues: number): { max: number; duration: number } {
  const g = gcd(perSecond, queues);
  return { max: perSecond / g, duration: (1000 * queues) / g };
}

export interface SendWorkersOptions
  extends ShardOptions, Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'limiter'> {
  connection: QueueConnection;
  prefix?: string;
  /**
   * Jobs of the lane this process holds at once (BullMQ's concurrency), over all its queues: the
   * broadcast lane's WORKER_BROADCAST_CONCURRENCY; the transactional lane's twice
   * WORKER_CONCURRENCY, whose deliveries the worker's bound keeps at WORKER_CONCURRENCY.
   */
  concurrency: number;
  /** WORKER_SEND_RATE: jobs of the lane started per second by all worker processes (0: no limit). */
  sendRate?: number;
}

/**
 * The workers of one lane in one process: a BullMQ Worker per queue of the lane — every shard,
 * and the previous layout's while it drains. BullMQ's concurrency and rate limit are per Worker
 * and per queue, so both are split over the lane's queues to keep their meaning per lane: the
 * process runs at most `concurrency` jobs of the lane at once (at least one per queue: a lane
 * with more queues than `concurrency` runs one per queue), and all processes together start at
 * most `sendRate` a second. Jobs spread evenly over shards (by email id), so the split costs
 * nothing in steady state; while a previous layout drains, its share of the concurrency is
 * idle once it is empty — remove QUEUE_SHARDS_PREVIOUS then.
 */
export function createSendWorkers(
  lane: SendLane,
  processor: Processor<SendQueueJob>,
  opts: SendWorkersOptions,
): Worker<SendQueueJob>[] {
  const { shards, previousShards, concurrency, sendRate, ...workerOpts } = opts;
  const names = layouts({ shards, previousShards }).flatMap((layout) => sendQueueNames(lane, layout));
  const concurrencies = splitEvenly(concurrency, names.length);
  const limiter = sendRate ? { limiter: shardLimiter(sendRate, names.length) } : {};
  return names.map(
    (name, i) =>
      new Worker<SendQueueJob>(name, processor, {
        ...workerOpts,
        ...limiter,
        concurrency: concurrencies[i]!,
      }),
  );
}

/**
 * Sets the concurrency of one lane's workers in a process (those createSendWorkers made) to
 * `concurrency` in all, split over them as createSendWorkers split it (at least 1 each); returns
 * what they run at once now. BullMQ reads `Worker.concurrency` before it fetches each job, so a
 * lower value takes effect as running jobs finish (none is interrupted) and a higher one at the
 * next fetch (https://docs.bullmq.io/guide/workers/concurrency).
 */
export function setLaneConcurrency(workers: readonly Worker<SendQueueJob>[], concurrency: number): number {
  const split = splitEvenly(concurrency, workers.length);
  workers.forEach((w, i) => {
    if (w.concurrency !== split[i]) w.concurrency = split[i]!;
  });
  return split.reduce((a, b) => a + b, 0);
}

export { Job, Worker, UnrecoverableError } from 'bullmq';

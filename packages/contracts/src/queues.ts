// cluster-key-slot ships no types; every program that compiles this file (each workspace reads
// contracts from source) needs the declaration beside it.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./cluster-key-slot.d.ts" />
import { z } from 'zod';
import calculateSlot from 'cluster-key-slot';

/**
 * The base name of each send lane's queues. Before sharding, each lane was one queue of exactly
 * this name; it is still the `queue` label of the metrics, so dashboards survive a change of
 * QUEUE_SHARDS. WARNING: persisted (see {@link sendQueueName}).
 */
export const QUEUES = {
  /** Transactional sends (POST /emails, /emails/batch): one job per email. */
  send: 'petrel-send',
  /** Broadcast sends: a separate lane so a broadcast can never delay a password reset. */
  sendBroadcast: 'petrel-send-broadcast',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * The send lanes. Each has queues of its own ({@link LANE_QUEUE}), so broadcast fan-out never
 * waits in front of a transactional email; an email record names its lane. Persisted like queue
 * names.
 */
export const SEND_LANES = ['send', 'broadcast'] as const;
export type SendLane = (typeof SEND_LANES)[number];

/** The base name of each send lane's queues. */
export const LANE_QUEUE: Record<SendLane, QueueName> = {
  send: QUEUES.send,
  broadcast: QUEUES.sendBroadcast,
};

/** What every job's payload starts with: its format version and the team it acts for. */
const jobHead = { v: z.literal(1), teamId: z.string().min(1) };

/** Payload of a send job. Content lives in the email record; the job carries ids only. */
export const sendJobSchema = z.object({
  ...jobHead,
  emailId: z.string().min(1),
  /**
   * Attempts the email made before this job existed: an email handed over by its group job after
   * a temporary failure continues the retry ladder where it stood (absent: 0).
   */
  attemptsBefore: z.number().int().nonnegative().optional(),
});
export type SendJob = z.infer<typeof sendJobSchema>;

/**
 * Payload of a group send job: the emails of one accepted request due at once, delivered by one
 * job (one BullMQ job costs about as much Redis work as the email record itself). An email whose
 * delivery must wait (a retry, a deferral) leaves the group for a job of its own.
 */
export const sendGroupJobSchema = z.object({
  v: z.literal(1),
  teamId: z.string().min(1),
  emailIds: z.array(z.string().min(1)).min(1),
});
export type SendGroupJob = z.infer<typeof sendGroupJobSchema>;

/** Any job of a send lane's queues: an email's own job or a group's. */
export type SendQueueJob = SendJob | SendGroupJob;

/**
 * The job id of a group: derived from its first email id (unique), so a retried acceptance or
 * the outbox relay writes the same job again, which BullMQ keeps once. The group's job lives in
 * the shard of that first email id (`sendQueueOf`). WARNING: persisted (records name their group
 * by its first email id; the watchdog finds the job by it).
 */
export const sendGroupJobId = (firstEmailId: string): string => `grp_${firstEmailId}`;

/** An email's own job, as a producer asks for it (job id = email id). */
export interface EmailJobSpec {
  teamId: string;
  emailId: string;
  /** Wait this long before the first attempt (a scheduled email, a retry). */
  delayMs?: number;
  /** See {@link SendJob}'s `attemptsBefore`. */
  attemptsBefore?: number;
}

/** A group job, as a producer asks for it (job id: {@link sendGroupJobId} of the first email). */
export interface GroupJobSpec {
  teamId: string;
  emailIds: readonly string[];
}

/** What a producer of send jobs asks for: one email's own job, or one group job. */
export type SendJobSpec = EmailJobSpec | GroupJobSpec;

/** Whether `spec` asks for a group job. */
export const isGroupSpec = (spec: SendJobSpec): spec is GroupJobSpec => 'emailIds' in spec;

/** Hash slots of a Redis Cluster (Redis Cluster specification, "Key distribution model"). */
export const CLUSTER_SLOTS = 16_384;

/**
 * CRC16 as Redis Cluster uses it (XMODEM: polynomial 0x1021, initial value 0), over `bytes`.
 * The specification's reference output: "123456789" → 0x31C3.
 *
 * Kept beside `cluster-key-slot` for {@link shardOf} alone: that library gives only the slot,
 * CRC16 mod 16384, and a shard is the whole CRC16 mod the shard count, persisted (a job is found
 * by it). Taken from the slot instead, the shard moves for every count that does not divide 16384:
 * 50 % of 100,000 random UUIDs with QUEUE_SHARDS=3, 75 % with 5 (0 % with 2, 4 or 8).
 */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

const utf8 = new TextEncoder();

/**
 * The hash slot of `key`, as `CLUSTER KEYSLOT` answers: CRC16 mod 16384 of the key, or only of
 * its hash tag — the part between the first `{` and the first `}` after it, when not empty
 * (Redis Cluster specification, "Hash tags"). `cluster-key-slot` is the function ioredis itself
 * routes commands by, so a slot computed here is the one the client uses.
 */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/**
 * How a lane's jobs are spread over queues: a number of shards (QUEUE_SHARDS), or `unsharded`
 * — the one queue per lane named {@link LANE_QUEUE}, as releases before sharding wrote it (only
 * ever consumed, to drain it during an upgrade; its keys have no hash tag, so single-node only).
 */
export type QueueLayout = number | 'unsharded';

function checkShards(shards: number): void {
  if (!Number.isInteger(shards) || shards < 1)
    throw new RangeError(`shards must be a positive integer: ${shards}`);
}

/** Memo of shard queue names by `lane/shards`: computing one searches a few hundred suffixes. */
const shardNames = new Map<string, readonly string[]>();

/**
 * The name of shard `shard` (0-based) of `shards` of `lane`'s queue, e.g. `{petrel-send-0of1-5}`.
 *
 * WARNING: persisted. BullMQ keys are `<prefix>:<name>:<suffix>`, so a job queued under one name
 * is invisible to workers of another: changing this function (or a lane's base name) strands
 * every queued job. A change of QUEUE_SHARDS renames every shard on purpose and is covered by
 * QUEUE_SHARDS_PREVIOUS (docs/architecture.md, "Changing QUEUE_SHARDS").
 *
 * Why the braces: BullMQ's scripts touch several keys of one queue at once, and on Redis Cluster
 * they must share a hash slot, so the name is a hash tag (BullMQ docs, "Redis Cluster"); each
 * shard is its own tag, hence its own slot. BullMQ refuses `:` in a queue name.
 *
 * Why the last number: the smallest suffix that puts the shard's slot in the middle half of its
 * 1/`shards` of the slot space. `redis-cli --cluster create` (and managed clusters) give each of
 * M masters one contiguous, equal range of slots, so with QUEUE_SHARDS a multiple of M every
 * master serves the same number of shards; plain names would land wherever CRC16 puts them, often
 * two shards of three on one master.
 */
export function sendQueueName(lane: SendLane, shard: number, shards: number): string {
  checkShards(shards);
  if (!Number.isInteger(shard) || shard < 0 || shard >= shards)
    throw new RangeError(`shard ${shard} is not one of ${shards}`);
  return laneQueues(lane, shards)[shard]!;
}

function laneQueues(lane: SendLane, shards: number): readonly string[] {
  const memo = `${lane}/${shards}`;
  let names = shardNames.get(memo);
  if (!names) {
    const width = CLUSTER_SLOTS / shards;
    names = Array.from({ length: shards }, (_, shard) => {
      const [lo, hi] = [(shard + 0.25) * width, (shard + 0.75) * width];
      for (let suffix = 0; ; suffix++) {
        const name = `{${LANE_QUEUE[lane]}-${shard}of${shards}-${suffix}}`;
        const slot = keySlot(name);
        if (slot >= lo && slot < hi) return name;
      }
    });
    shardNames.set(memo, names);
  }
  return names;
}

/** Every queue of `lane` in `layout`, by shard. */
export function sendQueueNames(lane: SendLane, layout: QueueLayout): readonly string[] {
  if (layout === 'unsharded') return [LANE_QUEUE[lane]];
  checkShards(layout);
  return laneQueues(lane, layout);
}

/**
 * The shard of an email among `shards`: CRC16 of its id, mod `shards`. Stable (persisted like
 * the names: remove and reschedule find a job by it) and spread evenly over UUIDv7 ids, whose
 * leading timestamp bits alone would put a burst of emails on one shard.
 */
export function shardOf(emailId: string, shards: number): number {
  checkShards(shards);
  return crc16(utf8.encode(emailId)) % shards;
}

/** The queue of `lane` that holds (or will hold) the job of `emailId` in `layout`. */
export function sendQueueOf(lane: SendLane, emailId: string, layout: QueueLayout): string {
  if (layout === 'unsharded') return LANE_QUEUE[lane];
  return laneQueues(lane, layout)[shardOf(emailId, layout)]!;
}

/**
 * The contact-import queue: one job per CSV import (POST /contacts/imports), consumed by every
 * worker process. Its own queue, not a send lane: an import runs for minutes and must never hold
 * a send slot. The braces make the name the hash tag of all its BullMQ keys (one slot on a Redis
 * Cluster, as BullMQ requires). WARNING: persisted — renaming it strands queued imports.
 */
export const CONTACT_IMPORT_QUEUE = '{petrel-contact-import}';

/** Payload of a contact-import job: ids only; the options and the file live in the import's record. */
export const contactImportJobSchema = z.object({
  ...jobHead,
  importId: z.string().min(1),
});
export type ContactImportJob = z.infer<typeof contactImportJobSchema>;

/**
 * The broadcast fan-out queue: one job per broadcast (job id derived from the broadcast id),
 * delayed until its `scheduled_at`, consumed by the scheduler processes. Its own queue, not a
 * send lane: a fan-out turns one broadcast into many jobs on the broadcast send lane. The braces
 * make the name the hash tag of its BullMQ keys (one slot on a Redis Cluster). WARNING:
 * persisted — renaming it strands scheduled broadcasts.
 */
export const BROADCAST_FANOUT_QUEUE = '{petrel-broadcast-fanout}';

/** Payload of a fan-out job: ids only; the broadcast record holds the rest. */
export const broadcastFanoutJobSchema = z.object({
  ...jobHead,
  broadcastId: z.string().min(1),
});
export type BroadcastFanoutJob = z.infer<typeof broadcastFanoutJobSchema>;

/** The fan-out job id of a broadcast: fixed, so scheduling twice is one job and delete finds it. */
export const broadcastFanoutJobId = (teamId: string, broadcastId: string): string =>
  `fanout:${teamId}:${broadcastId}`;

/**
 * The webhook delivery queue: one job per (event, endpoint), consumed by the webhook dispatcher
 * processes (apps/webhooks). Its own queue: an endpoint that answers in 15 s must never hold a
 * send slot. The braces make the name the hash tag of its BullMQ keys (one slot on a Redis
 * Cluster). WARNING: persisted — renaming it strands queued deliveries.
 */
export const WEBHOOK_DELIVERY_QUEUE = '{petrel-webhook-delivery}';

/** Payload of a delivery job: ids only; the signed body is stored once in the event log. */
export const webhookDeliveryJobSchema = z.object({
  ...jobHead,
  endpointId: z.string().min(1),
  eventId: z.string().min(1),
});
export type WebhookDeliveryJob = z.infer<typeof webhookDeliveryJobSchema>;

/**
 * The delivery job id of an event for an endpoint: fixed, so an event read twice from the stream
 * (a dispatcher died before it acknowledged it) is one job. A replay is a job of its own, with
 * the replay's number after a `~` (BullMQ allows exactly two `:` in a custom id).
 */
export const webhookDeliveryJobId = (eventId: string, endpointId: string, replay = 0): string =>
  `wh:${eventId}:${endpointId}${replay > 0 ? `~${replay}` : ''}`;

/**
 * The automation queue: every job of the automation engine — a received event (starts runs,
 * resumes waiting ones) and each step of a run (a delay or a wait's timeout is the step's job
 * moved to delayed) — consumed by the worker processes. Its own queue: a run's steps must never
 * wait behind a broadcast's sends. The braces make the name the hash tag of its BullMQ keys (one
 * slot on a Redis Cluster). WARNING: persisted — renaming it strands queued runs.
 */
export const AUTOMATION_QUEUE = '{petrel-automation}';

/** Payload of an automation job: an event to dispatch, or one step of a run (ids only). */
export const automationJobSchema = z.discriminatedUnion('kind', [
  z.object({
    ...jobHead,
    kind: z.literal('event'),
    event: z.object({
      id: z.string().min(1),
      teamId: z.string().min(1),
      name: z.string().min(1),
      contactId: z.string().min(1),
      payload: z.record(z.string(), z.unknown()),
      receivedAt: z.string(),
    }),
  }),
  z.object({
    ...jobHead,
    kind: z.literal('step'),
    runId: z.string().min(1),
    stepKey: z.string().min(1),
    /** The step's index in the run's graph (job ids use it: step keys are free text). */
    index: z.number().int().nonnegative(),
    /** Which visit of the step (graphs have no cycles, so always 1 today; kept in the id). */
    visit: z.number().int().positive(),
  }),
]);
export type AutomationJob = z.infer<typeof automationJobSchema>;

/** The job id of an event's dispatch: fixed, so handing the same event over twice is one job. */
export const automationEventJobId = (eventId: string): string => `aev_${eventId}`;

/** The job id of a step's visit in a run: fixed, so scheduling a step twice is one job. */
export const automationStepJobId = (runId: string, index: number, visit: number): string =>
  `ast_${runId}_${index}_${visit}`;

/**
 * The inbox agent queue: one job per inbound message filed into an inbox whose agent has
 * actions (and only when an operator configured a model endpoint, INBOX_AGENT_URL), consumed by
 * the worker processes. Its own queue: a model call takes seconds and must never hold a send
 * slot. The braces make the name the hash tag of its BullMQ keys (one slot on a Redis Cluster).
 * WARNING: persisted — renaming it strands queued runs.
 */
export const INBOX_AGENT_QUEUE = '{petrel-inbox-agent}';

/** Payload of an agent job: ids only; the thread, its messages and the settings are read at run time. */
export const inboxAgentJobSchema = z.object({
  ...jobHead,
  inboxId: z.string().min(1),
  threadId: z.string().min(1),
  emailId: z.string().min(1),
});
export type InboxAgentJob = z.infer<typeof inboxAgentJobSchema>;

/** The job id of the agent's run on one message of an inbox: fixed, so filing it twice is one run. */
export const inboxAgentJobId = (inboxId: string, emailId: string): string => `agent_${inboxId}_${emailId}`;

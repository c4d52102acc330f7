/**
 * Every BullMQ queue a process may add jobs to, over the process's command connection (a queue
 * never blocks; the workers that consume them take a blocking connection of their own). Adding a
 * queue is one line here; the runtime closes the ones a process opened.
 */
import {
  AutomationQueue,
  BroadcastFanoutQueue,
  ContactImportQueue,
  InboxAgentQueue,
  SendQueues,
  WebhookDeliveryQueue,
} from '@petrel/queue';
import type { Keys, RedisClient } from '@petrel/store';
import type { RuntimeConfig } from './config.js';
import type { Built } from './lazy.js';

export interface QueueContext {
  redis: RedisClient;
  keys: Keys;
  config: RuntimeConfig;
}

const prefix = (c: QueueContext) => ({ prefix: c.keys.bullPrefix() });

export const QUEUES = {
  automation: (c: QueueContext) => new AutomationQueue(c.redis, prefix(c)),
  fanout: (c: QueueContext) => new BroadcastFanoutQueue(c.redis, prefix(c)),
  imports: (c: QueueContext) => new ContactImportQueue(c.redis, prefix(c)),
  inboxAgent: (c: QueueContext) => new InboxAgentQueue(c.redis, prefix(c)),
  // every API, worker and scheduler of a deployment sees the same shards (queueEnv)
  send: (c: QueueContext) =>
    new SendQueues(c.redis, {
      ...prefix(c),
      ...(c.config.QUEUE_SHARDS !== undefined && { shards: c.config.QUEUE_SHARDS }),
      previousShards: c.config.QUEUE_SHARDS_PREVIOUS,
    }),
  webhookDelivery: (c: QueueContext) => new WebhookDeliveryQueue(c.redis, prefix(c)),
};

export type Queues = Built<typeof QUEUES>;

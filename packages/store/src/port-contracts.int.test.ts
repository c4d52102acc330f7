/**
 * The port contracts of packages/testing/src/contracts against the Redis stores, on one server
 * (integration project) and on a Redis Cluster (integration-cluster project): the behaviours the
 * in-memory ports core's unit tests use are held to, so the fakes cannot drift from the stores.
 */
import { describeBroadcastsContract } from '../../testing/src/contracts/broadcasts.contract.js';
import { describeContactImportsContract } from '../../testing/src/contracts/contact-imports.contract.js';
import { describeContactsContract } from '../../testing/src/contracts/contacts.contract.js';
import {
  describeEmailRecordsContract,
  emailEvent,
} from '../../testing/src/contracts/email-records.contract.js';
import { describeSuppressionsContract } from '../../testing/src/contracts/suppressions.contract.js';
import { describeTemplatesContract } from '../../testing/src/contracts/templates.contract.js';
import { describeTopicsContract } from '../../testing/src/contracts/topics.contract.js';
import { describeWebhooksContract } from '../../testing/src/contracts/webhooks.contract.js';
import { BroadcastsStore } from './broadcasts.store.js';
import { ContactImportsStore } from './contact-imports.store.js';
import { ContactPropertiesStore } from './contact-properties.store.js';
import { ContactsStore } from './contacts.store.js';
import { EmailsStore } from './emails.store.js';
import { newId } from '@petrel/core';
import { emailContent } from '@petrel/testing';
import { useStoreRedis } from './redis.fixture.js';
import { SegmentsStore } from './segments.store.js';
import { SuppressionsStore } from './suppressions.store.js';
import { TemplatesStore } from './templates.store.js';
import { TopicsStore } from './topics.store.js';
import { WebhooksStore } from './webhooks.store.js';

const fx = useStoreRedis('contracts');

describeBroadcastsContract('redis', (clock) => new BroadcastsStore(fx.redis, fx.keys, clock));

describeContactsContract('redis', (clock) => {
  const topics = new TopicsStore(fx.redis, fx.keys, clock);
  const segments = new SegmentsStore(fx.redis, fx.keys, clock);
  return {
    contacts: new ContactsStore(fx.redis, fx.keys, clock),
    properties: new ContactPropertiesStore(fx.redis, fx.keys, clock),
    addSegment: async (teamId) => (await segments.create(teamId, 'Segment')).id,
    addTopic: async (teamId) =>
      (
        await topics.create(teamId, {
          name: 'Topic',
          description: null,
          default_subscription: 'opt_in',
          visibility: 'public',
        })
      ).id,
  };
});

describeTopicsContract('redis', (clock) => new TopicsStore(fx.redis, fx.keys, clock));

describeSuppressionsContract('redis', (clock) => new SuppressionsStore(fx.redis, fx.keys, clock));

// event log entries kept a day, as long as the tests need them
describeWebhooksContract('redis', (clock) => new WebhooksStore(fx.redis, fx.keys, 24 * 3600_000, clock));

// versions of a deleted template kept a day
describeTemplatesContract('redis', () => new TemplatesStore(fx.redis, fx.keys, 24 * 3600_000));

describeEmailRecordsContract('redis', (clock) => {
  const records = new EmailsStore(fx.redis, fx.keys, 24 * 3600_000, {
    statsRetentionMs: 24 * 3600_000,
    clock,
  });
  return {
    records,
    seed: async (teamId, status, lane) => {
      const id = newId();
      const event = emailEvent(teamId, status === 'scheduled' ? 'email.scheduled' : 'email.queued');
      const dueMs = status === 'scheduled' ? clock.now() + 3600_000 : 0;
      await records.stage(
        teamId,
        [{ id, content: emailContent(), status, lane, dueMs, messageId: `<${id}@acme.test>`, event }],
        new Date(),
      );
      return id;
    },
  };
});

describeContactImportsContract('redis', () => {
  const runs = new ContactImportsStore(fx.redis, fx.keys);
  return {
    runs,
    upload: (teamId, importId, chunk) => runs.appendChunk(teamId, importId, chunk),
    read: (teamId, importId) => runs.get(teamId, importId),
  };
});

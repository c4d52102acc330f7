/**
 * The port contracts (./*.contract.ts) against the in-memory ports core's unit tests use; the
 * same contracts run against the Redis stores in packages/store/src/port-contracts.int.test.ts.
 */
import { newId } from '@petrel/core';
import { MemoryBroadcasts } from '../memory/broadcasts.js';
import { MemoryContactImports } from '../memory/contact-imports.js';
import { MemoryContactProperties, MemoryContacts } from '../memory/contacts.js';
import { MemoryEmailRecords } from '../memory/emails-ports.js';
import { MemorySuppressions } from '../memory/suppressions.js';
import { MemoryTemplates } from '../memory/templates-ports.js';
import { MemoryTopics } from '../memory/topics.js';
import { MemoryWebhooks } from '../memory/webhooks.js';
import { describeBroadcastsContract } from './broadcasts.contract.js';
import { describeContactImportsContract } from './contact-imports.contract.js';
import { describeContactsContract } from './contacts.contract.js';
import { describeEmailRecordsContract } from './email-records.contract.js';
import { describeSuppressionsContract } from './suppressions.contract.js';
import { describeTemplatesContract } from './templates.contract.js';
import { describeTopicsContract } from './topics.contract.js';
import { describeWebhooksContract } from './webhooks.contract.js';

describeBroadcastsContract('memory', (clock) => new MemoryBroadcasts(clock));

describeContactsContract('memory', (clock) => {
  const properties = new MemoryContactProperties(clock);
  const contacts = new MemoryContacts(properties, clock);
  const added = (add: (teamId: string, id: string) => void) => async (teamId: string) => {
    const id = newId(clock.now());
    add(teamId, id);
    return id;
  };
  return {
    contacts,
    properties,
    addSegment: added((t, id) => contacts.addSegment(t, id)),
    addTopic: added((t, id) => contacts.addTopic(t, id)),
  };
});

describeTopicsContract('memory', () => new MemoryTopics());

describeSuppressionsContract('memory', () => new MemorySuppressions());

describeWebhooksContract('memory', () => new MemoryWebhooks());

describeTemplatesContract('memory', () => new MemoryTemplates());

describeEmailRecordsContract('memory', () => {
  const records = new MemoryEmailRecords();
  return { records, seed: async (teamId, status, lane) => records.add(teamId, newId(), status, lane).id };
});

describeContactImportsContract('memory', () => {
  const runs = new MemoryContactImports();
  const uploads = new Map<string, Uint8Array[]>();
  return {
    runs,
    // the memory port takes a whole file: keep the chunks and hand it over joined
    upload: async (teamId, importId, chunk) => {
      const key = `${teamId}/${importId}`;
      uploads.set(key, [...(uploads.get(key) ?? []), chunk]);
      runs.upload(teamId, importId, Buffer.concat(uploads.get(key)!));
    },
    read: async (teamId, importId) => runs.get(teamId, importId) ?? null,
  };
});

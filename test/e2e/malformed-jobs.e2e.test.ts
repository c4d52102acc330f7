/**
 * A job whose payload does not match its schema fails at its first attempt, on every queue of
 * the stack (both send lanes, webhook deliveries, contact imports, automations, broadcast
 * fan-outs): no payload becomes valid on a retry, so it must not climb a retry ladder. The jobs
 * are added straight to the real queues in Redis, with 5 attempts allowed, and the stack's own
 * workers run them.
 */
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import {
  AUTOMATION_QUEUE,
  BROADCAST_FANOUT_QUEUE,
  CONTACT_IMPORT_QUEUE,
  WEBHOOK_DELIVERY_QUEUE,
  sendQueueNames,
} from '@petrel/contracts';
import { waitUntil } from '@petrel/testing';
import { fileStack } from './helpers.js';

const stack = fileStack();

/** Each queue, a payload with one bad field, and the field the failure must name. */
const CASES = [
  { queue: sendQueueNames('send', 1)[0]!, data: { v: 1, teamId: 't1', emailId: 42 }, field: 'emailId' },
  { queue: sendQueueNames('broadcast', 1)[0]!, data: { v: 1, teamId: '', emailId: 'e1' }, field: 'teamId' },
  {
    queue: WEBHOOK_DELIVERY_QUEUE,
    data: { v: 1, teamId: 't1', endpointId: 'w1' },
    field: 'eventId',
  },
  { queue: CONTACT_IMPORT_QUEUE, data: { v: 1, teamId: 't1', importId: null }, field: 'importId' },
  { queue: AUTOMATION_QUEUE, data: { v: 1, kind: 'step', teamId: 't1', runId: 'r1' }, field: 'stepKey' },
  { queue: BROADCAST_FANOUT_QUEUE, data: { v: 2, teamId: 't1', broadcastId: 'b1' }, field: 'v' },
];

describe('a malformed job', () => {
  it.each(CASES)(
    'on $queue fails after exactly one attempt, naming `$field`',
    async ({ queue, data, field }) => {
      const q = new Queue(queue, { connection: stack.admin, prefix: stack.keys.bullPrefix() });
      try {
        const added = await q.add('malformed', data, { attempts: 5, backoff: { type: 'fixed', delay: 10 } });
        await waitUntil(async () => (await q.getJobState(added.id!)) === 'failed', {
          message: `job ${added.id} on ${queue} to fail`,
        });
        // read once it has failed: a copy read before could predate the failure
        const failed = (await q.getJob(added.id!))!;
        expect(failed.attemptsMade).toBe(1);
        expect(failed.failedReason).toMatch(new RegExp(`^malformed job: .*\\b${field}\\b`));
      } finally {
        await q.close();
      }
    },
  );
});

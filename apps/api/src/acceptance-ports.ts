/**
 * Adapter: the ports of the accept-emails use-case over Redis and the send queues — the one
 * implementation every producer shares (`redisAcceptancePorts`, packages/store, which explains
 * the three-step commit), with this process's idempotency metric.
 */
import type { AcceptPorts, ClaimResult, Preparer } from '@petrel/core';
import {
  redisAcceptancePorts,
  type EmailsStore,
  type IdempotencyStore,
  type OutboxStore,
} from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { allOf, metrics, zeroSeries } from '@petrel/observability';

export function acceptancePorts(deps: {
  emails: EmailsStore;
  idempotency: IdempotencyStore;
  outbox: OutboxStore;
  queues: SendQueues;
  /** The acceptance stages (`acceptPreparer(...)` from core). */
  preparer: Preparer;
}): AcceptPorts {
  // every outcome's series from start-up (the SMTP server and the workers' automation emails
  // count into the same metric: a dashboard sums them)
  zeroSeries(metrics.idempotency(), {
    outcome: allOf<ClaimResult['outcome']>({ proceed: true, replay: true, mismatch: true, in_flight: true }),
  });
  return redisAcceptancePorts({
    ...deps,
    onIdempotency: (outcome) => metrics.idempotency().inc({ outcome }),
  });
}

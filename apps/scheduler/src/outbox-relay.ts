/**
 * Outbox relay wiring: the teams directory, each team's outbox and the send queues as the ports
 * of the core use-case (`relayOutbox`), logs as its observer, run on an interval. The rules live
 * in packages/core/src/outbox.
 */
import { relayOutbox, type OutboxRelayObserver, type OutboxRelayPorts } from '@petrel/core';
import { log } from '@petrel/observability';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

/**
 * The observer of production. A relayed email means an acceptance was interrupted between its
 * records and its jobs (a crashed API, a failed enqueue): rare, hence a warning each time.
 */
export const outboxRelayObserver: OutboxRelayObserver = {
  relayed: (teamId, count) =>
    log().warn({ teamId, count }, 'outbox relay enqueued the jobs of interrupted acceptances'),
  failed: (teamId, err) =>
    log().error({ err, teamId }, 'outbox relay failed for a team; trying again next interval'),
};

/**
 * Run a relay round every `graceMs / 2` (at least every 50 ms), so the jobs of an interrupted
 * acceptance exist between 1 and 1.5 × `graceMs` after it.
 */
export function startOutboxRelay(opts: { ports: OutboxRelayPorts; graceMs: number }): IntervalLoop {
  return startIntervalLoop(
    () => relayOutbox(opts.ports, { graceMs: opts.graceMs }),
    Math.max(50, Math.floor(opts.graceMs / 2)),
    (err) => log().error({ err }, 'outbox relay round failed; trying again next interval'),
  );
}

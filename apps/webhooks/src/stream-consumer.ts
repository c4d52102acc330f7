/**
 * The stream side of the dispatcher: round-robin over the teams that have webhooks (the global
 * set, refreshed every second), one XREADGROUP per team stream per round (each stream is in its
 * team's slot: cluster-safe), then `dispatchWebhookEvents` (core) writes the event-log entries
 * and the direct deliveries (direct-deliveries.ts) make the first attempts, or enqueue them;
 * each entry is acknowledged only after that — a crash in between re-reads it, and the fixed job
 * ids and the log make that harmless. Entries a dead dispatcher read but never acknowledged are
 * claimed after WEBHOOK_CLAIM_IDLE_MS; this process's own entries still in hand are touched
 * instead (their idle time reset), so no one claims a slow delivery.
 *
 * When a whole round reads nothing the loop waits: with one team (a single-tenant deployment) a
 * blocking read on its stream (on a connection of its own), so an event is dispatched the moment
 * it is written; with several, a sleep of 5 ms doubling to 100 ms — one stream per command is
 * what keeps the reads cluster-safe, and an idle deployment then costs a few commands a second.
 */
import { dispatchWebhookEvents, systemClock, type WebhookDeliveryQueuePort } from '@petrel/core';
import type { WebhookEventStream, WebhooksStore } from '@petrel/store';
import { log } from '@petrel/observability';
import type { DirectDeliveries } from './direct-deliveries.js';

const IDLE_MIN_MS = 5;
const IDLE_MAX_MS = 100;
/** How long one blocking read waits at most (then the team list is refreshed). */
const BLOCK_MS = 1_000;
const TEAMS_REFRESH_MS = 1_000;
const ERROR_PAUSE_MS = 1_000;

export interface StreamConsumerDeps {
  stream: WebhookEventStream;
  /** The same stream reader on a connection of its own, for blocking reads. */
  blockingStream: WebhookEventStream;
  store: WebhooksStore;
  queue: WebhookDeliveryQueuePort;
  /** Makes the first attempts of each batch and acknowledges its entries. */
  direct: DirectDeliveries;
  /** This process's consumer name in the group (unique per process). */
  consumer: string;
  /** Entries read per team per round. */
  batch: number;
  claimIdleMs: number;
}

export interface StreamConsumer {
  stop(): Promise<void>;
}

export function startStreamConsumer(deps: StreamConsumerDeps): StreamConsumer {
  let stopped = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const touchAfterMs = deps.claimIdleMs / 4;
  const blockMs = Math.max(1, Math.min(BLOCK_MS, Math.floor(deps.claimIdleMs / 4)));

  async function handle(teamId: string, claim: boolean, block = false): Promise<number> {
    const readAt = Date.now();
    const claimed = claim
      ? (await deps.stream.claimStale(teamId, deps.consumer, deps.claimIdleMs, deps.batch)).filter(
          (e) => !deps.direct.holds(teamId, e.entryId),
        )
      : [];
    const entries = [
      ...claimed,
      ...(block
        ? await deps.blockingStream.read(teamId, deps.consumer, deps.batch, blockMs)
        : await deps.stream.read(teamId, deps.consumer, deps.batch)),
    ];
    if (entries.length === 0) return 0;
    const events = entries.flatMap((e) => (e.event ? [e.event] : []));
    const { ready } = await dispatchWebhookEvents(
      { teamId, events },
      { webhooks: deps.store, log: deps.store, queue: deps.queue, clock: systemClock },
    );
    await deps.direct.take(teamId, entries, ready, readAt);
    return entries.length;
  }

  const done = (async () => {
    let idle = IDLE_MIN_MS;
    let teams: string[] = [];
    let teamsAt = 0;
    let claimAt = 0;
    while (!stopped) {
      try {
        const now = Date.now();
        if (now - teamsAt >= TEAMS_REFRESH_MS) {
          teams = await deps.store.teamsWithWebhooks();
          teamsAt = now;
        }
        const claim = now - claimAt >= deps.claimIdleMs / 2;
        if (claim) claimAt = now;
        let read = 0;
        for (const teamId of teams) {
          if (stopped) break;
          // entries still in hand are touched well before anyone may claim them: rounds come
          // at least every claimIdle / 4 (the blocking read waits no longer), so none of them
          // goes idle for more than about half of WEBHOOK_CLAIM_IDLE_MS
          const slow = deps.direct.heldSince(teamId, now - touchAfterMs);
          await deps.stream.touch(teamId, deps.consumer, slow);
          read += await handle(teamId, claim);
          if (claim) await deps.store.pruneTeam(teamId);
        }
        if (read > 0) idle = IDLE_MIN_MS;
        else if (teams.length === 1 && !stopped) {
          read = await handle(teams[0]!, false, true);
        } else {
          await sleep(idle);
          idle = Math.min(idle * 2, IDLE_MAX_MS);
        }
      } catch (err) {
        if (stopped) break; // the blocking read's connection closes with the dispatcher
        log().error({ err }, 'webhook stream consumer: round failed; retrying');
        await sleep(ERROR_PAUSE_MS);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await done;
    },
  };
}

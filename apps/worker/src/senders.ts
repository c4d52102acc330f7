/**
 * The SMTP senders of the send lanes, by DELIVERY_MODE:
 * - `relay` (default): every email through SMTP_URL, one pool per lane — a broadcast's sends
 *   fill every connection of their pool, and a password reset must not wait in that queue.
 * - `direct`: to each recipient domain's MX (packages/mailer's direct sender). The lanes share
 *   one sender: a receiving host's limits are per sending IP, not per lane, so its adaptive
 *   concurrency limit must count every send to it.
 */
import {
  createDirectDns,
  createDirectSender,
  createSmtpSender,
  DEFERRAL_REASONS,
  type SmtpSender,
} from '@petrel/mailer';
import { log, metrics } from '@petrel/observability';
import { SEND_LANES, type SendLane } from '@petrel/contracts';
import type { WorkerConfig } from './config.js';

/** The lanes' senders; a sender shared by lanes is listed once in `all`. */
export interface LaneSenders {
  byLane: Map<SendLane, SmtpSender>;
  all: SmtpSender[];
}

export function createLaneSenders(config: WorkerConfig): LaneSenders {
  if (config.DELIVERY_MODE === 'direct') {
    const sender = createDirectSender({
      dns: createDirectDns({ servers: config.DNS_SERVERS, mxTtlMs: config.DIRECT_MX_CACHE_TTL_S * 1000 }),
      port: config.DIRECT_SMTP_PORT,
      maxConnectionsPerHost: config.DIRECT_MAX_CONNECTIONS_PER_HOST,
      recoverAfter: config.DIRECT_RECOVERY_SUCCESSES,
      maxPools: config.DIRECT_MAX_POOLS,
      poolIdleMs: config.DIRECT_POOL_IDLE_MS,
      slotWaitMs: config.DIRECT_SLOT_WAIT_MS,
      connectionTimeoutMs: config.SMTP_CONNECTION_TIMEOUT_MS,
      socketTimeoutMs: config.SMTP_SOCKET_TIMEOUT_MS,
      ...(config.DIRECT_HELO_NAME !== undefined && { heloName: config.DIRECT_HELO_NAME }),
      observer: {
        limit: (destination, limit) => metrics.directConcurrencyLimit().set({ destination }, limit),
        deferral: (destination, reason) => metrics.directDeferrals().inc({ destination, reason }),
        forget(destination) {
          // the series of a forgotten destination go with it: cardinality stays ≤ DIRECT_MAX_POOLS
          metrics.directConcurrencyLimit().remove({ destination });
          for (const reason of DEFERRAL_REASONS) metrics.directDeferrals().remove({ destination, reason });
        },
      },
    });
    log().info(
      {
        port: config.DIRECT_SMTP_PORT,
        maxConnectionsPerHost: config.DIRECT_MAX_CONNECTIONS_PER_HOST,
        dnsServers: config.DNS_SERVERS.length > 0 ? config.DNS_SERVERS : 'system',
      },
      'direct delivery: mail goes to each recipient domain MX',
    );
    return { byLane: new Map(SEND_LANES.map((lane) => [lane, sender])), all: [sender] };
  }
  // startWorker checked it is set
  const url = config.SMTP_URL ?? '';
  const byLane = new Map(
    SEND_LANES.map((lane) => [
      lane,
      createSmtpSender({
        url,
        poolSize: config.SMTP_POOL_SIZE,
        connectionTimeoutMs: config.SMTP_CONNECTION_TIMEOUT_MS,
        socketTimeoutMs: config.SMTP_SOCKET_TIMEOUT_MS,
      }),
    ]),
  );
  return { byLane, all: [...byLane.values()] };
}

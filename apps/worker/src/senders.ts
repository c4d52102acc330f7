/**
 * The SMTP senders of the send lanes, by DELIVERY_MODE:
 * - `relay` (default): every email through SMTP_URL, one pool per lane — a broadcast's sends
 *   fill every connection of their pool, and a password reset must not wait in that queue.
 * - `direct`: to each recipient domain's MX (packages/mailer's direct sender). The lanes share
 *   one sender: a receiving host's limits are per sending IP, not per lane, so its adaptive
 *   concurrency limit must count every send to it.
 */
import { readFileSync } from 'node:fs';
import {
  createDirectDns,
  createDirectSender,
  createMtaSts,
  createSmtpSender,
  createSourcePools,
  DEFERRAL_REASONS,
  type SmtpSender,
} from '@petrel/mailer';
import type { Stores } from '@petrel/runtime';
import { log, metrics, zeroSeries } from '@petrel/observability';
import { SEND_LANES, type SendLane } from '@petrel/contracts';
import { TLS_RPT_RESULT_TYPES } from '@petrel/core';
import type { WorkerConfig } from './config.js';

/** The lanes' senders; a sender shared by lanes is listed once in `all`. */
export interface LaneSenders {
  byLane: Map<SendLane, SmtpSender>;
  all: SmtpSender[];
}

/**
 * `stores` (the runtime's) hold what the workers share (TLS-RPT counters, warm-up counters);
 * without them (unit tests) neither is kept.
 */
export function createLaneSenders(
  config: WorkerConfig,
  stores?: Pick<Stores, 'tlsRpt' | 'warmup'>,
): LaneSenders {
  // exported at zero from the start (in either mode, so the dashboard's direct-delivery panels
  // have their series): MTA-STS sessions by mode and result, each configured pool address
  zeroSeries(metrics.directTlsSessions(), {
    mode: ['enforce', 'testing'],
    result: ['success', ...TLS_RPT_RESULT_TYPES],
  });
  for (const pool of config.SENDING_POOLS) {
    zeroSeries(metrics.poolSends(), { pool: [pool.name], address: pool.addresses });
    zeroSeries(metrics.poolWarmupDeferrals(), { pool: [pool.name] });
  }
  if (config.DELIVERY_MODE === 'direct') {
    const dns = createDirectDns({
      servers: config.DNS_SERVERS,
      mxTtlMs: config.DIRECT_MX_CACHE_TTL_S * 1000,
    });
    const stsCa =
      config.MTA_STS_CA_FILE !== undefined ? readFileSync(config.MTA_STS_CA_FILE, 'utf8') : undefined;
    const tlsRpt = config.TLS_RPT ? stores?.tlsRpt : undefined;
    const direct = createDirectSender({
      dns,
      port: config.DIRECT_SMTP_PORT,
      maxConnectionsPerHost: config.DIRECT_MAX_CONNECTIONS_PER_HOST,
      recoverAfter: config.DIRECT_RECOVERY_SUCCESSES,
      maxPools: config.DIRECT_MAX_POOLS,
      poolIdleMs: config.DIRECT_POOL_IDLE_MS,
      slotWaitMs: config.DIRECT_SLOT_WAIT_MS,
      connectionTimeoutMs: config.SMTP_CONNECTION_TIMEOUT_MS,
      socketTimeoutMs: config.SMTP_SOCKET_TIMEOUT_MS,
      ...(config.DIRECT_HELO_NAME !== undefined && { heloName: config.DIRECT_HELO_NAME }),
      ...(config.MTA_STS && {
        mtaSts: createMtaSts({
          dns,
          httpsPort: config.MTA_STS_HTTPS_PORT,
          ...(stsCa !== undefined && { extraCa: stsCa }),
        }),
        ...(stsCa !== undefined && { stsCa }),
      }),
      ...(config.SENDING_POOLS.length > 0 &&
        stores && {
          pools: createSourcePools({
            pools: config.SENDING_POOLS,
            ...(config.WARMUP_SCHEDULE !== undefined && { schedule: config.WARMUP_SCHEDULE }),
            dayMs: config.WARMUP_DAY_S * 1000,
            counter: stores.warmup,
            observer: {
              used(pool, address, cap) {
                metrics.poolSends().inc({ pool, address });
                metrics.poolWarmupCap().set({ pool, address }, cap ?? -1);
              },
              warmupDeferred: (pool) => metrics.poolWarmupDeferrals().inc({ pool }),
            },
          }),
        }),
      observer: {
        tls(domain, policy, session) {
          const mode = policy.type === 'sts' ? stsMode(policy.lines) : 'none';
          metrics.directTlsSessions().inc({ mode, result: session.ok ? 'success' : session.resultType });
          tlsRpt?.record(domain, policy, session);
        },
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
    const sender: SmtpSender = {
      send: (msg, origin) => direct.send(msg, origin),
      verify: () => direct.verify(),
      async close() {
        await direct.close();
        // the counts of the last second go to Redis before the worker's connection closes
        await tlsRpt?.close();
      },
    };
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
        overflowConnections: config.SMTP_POOL_OVERFLOW ?? config.SMTP_POOL_SIZE,
        slowAnswerMs: config.SMTP_SLOW_ANSWER_MS,
        connectionTimeoutMs: config.SMTP_CONNECTION_TIMEOUT_MS,
        socketTimeoutMs: config.SMTP_SOCKET_TIMEOUT_MS,
      }),
    ]),
  );
  return { byLane, all: [...byLane.values()] };
}

/** The `mode:` line of an MTA-STS policy (a metrics label). */
function stsMode(lines: readonly string[]): string {
  const line = lines.find((l) => /^mode\s*:/i.test(l));
  return line?.split(':')[1]?.trim().toLowerCase() ?? 'none';
}

/**
 * Direct delivery: the {@link SmtpSender} that hands each email to its recipients' MX hosts
 * instead of a relay (DELIVERY_MODE=direct).
 *
 * Per email: recipients grouped by domain ({@link groupByDomain}), one SMTP transaction per
 * domain, their results read as one ({@link combineSendResults}: as the replies of several
 * RCPT TO). Per domain: the MX route ({@link routeFor}: preference order, random among equals,
 * implicit MX, null MX), then the hosts in order, each host's addresses (IPv4 first), until one
 * session gets past its setup; a failure there (refused, timed out, 4xx/5xx greeting, EHLO or
 * STARTTLS failed) moves on to the next host, a reply to MAIL/RCPT/DATA is the answer
 * (classify.ts decides soft or hard as for the relay). At most {@link MAX_MX_HOSTS} hosts and
 * {@link MAX_ADDRESSES_PER_HOST} addresses each: the retry ladder tries again later.
 *
 * Per destination host (the MX host name): one pooled connection set per address and TLS policy
 * (createSmtpSender, so SMTPUTF8 planning and result classification are the relay's), at most
 * `maxPools` open (least recently used closed first) and each closed after `poolIdleMs` unused;
 * and an adaptive concurrency limit ({@link DestinationGate}) that halves on 421 / 4.7.x /
 * refused connections and grows back by one every `recoverAfter` deliveries. A send waits for
 * a slot at most `slotWaitMs`, then the next host is tried (or the email deferred).
 *
 * STARTTLS (RFC 3207): opportunistic by default — used when offered, without checking the
 * certificate (RFC 7435 opportunistic security: MX certificates are rarely valid for the MX
 * name, and refusing them would only push the mail to plaintext); a server that refuses the
 * STARTTLS command gets the email in plaintext. A failed TLS handshake is NOT retried in
 * plaintext on that host: an attacker on the path could force any session down to plaintext by
 * breaking handshakes; the next MX host is tried and, failing all, the email is deferred.
 * `tls: 'enforced'` on the message (the from-domain's setting) requires the upgrade: a host
 * without STARTTLS is skipped with a `tls_required` deferral and, failing all, the email is
 * deferred (soft fail) with that reason — never sent in plaintext. Enforced TLS means
 * encrypted, not authenticated: the certificate is not checked either (that is MTA-STS's).
 *
 * MTA-STS (RFC 8461, `mtaSts`): a recipient domain with a policy in `enforce` mode gets its mail
 * only through MX hosts its policy lists, over STARTTLS with a certificate valid for the MX name
 * (RFC 8461 section 4.2): an unlisted host is never connected to, a host whose certificate does
 * not validate is left, and with no host left the email is deferred (`mta_sts`) — never sent in
 * plaintext or to another host. In `testing` mode the same checks run and what fails is only
 * reported: the email then goes as without a policy. Every session under a policy, and every
 * policy that could not be fetched, is reported to `observer.tls` (TLS-RPT, RFC 8460).
 *
 * Sending pools (`pools`): the connection's local address is the email's pool's, under its
 * warm-up cap (source-pools.ts); over the cap the delivery is deferred (`warmup`).
 */
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { LRUCache } from 'lru-cache';
import {
  combineSendResults,
  stsCandidates,
  type SendOrigin,
  type StsPolicy,
  type TlsRptPolicy,
  type TlsRptSession,
} from '@petrel/core';
import type { SendResult } from '../classify.js';
import { createSmtpSender, type OutgoingMessage, type SmtpSender } from '../transport.js';
import { DestinationGate } from './aimd.js';
import type { DirectDns } from './dns.js';
import { groupByDomain } from './group.js';
import { MAX_MX_HOSTS, routeFor } from './mx-route.js';
import {
  deferralReason,
  feedbackOf,
  isTlsFailure,
  tlsResultType,
  triesNextHost,
  type DeferralReason,
} from './outcome.js';
import type { MtaSts } from './mta-sts.js';
import type { SourcePools } from './source-pools.js';

/** Metrics hooks; each must not throw. */
export interface DirectObserver {
  /** The concurrency limit of a destination changed (or it was first used). */
  limit(destination: string, limit: number): void;
  /** An attempt at a destination was deferred; `destination` is `(dns)` for a failed DNS lookup. */
  deferral(destination: string, reason: DeferralReason): void;
  /** A destination was dropped (idle or over the cap): its metrics series can go. */
  forget(destination: string): void;
  /** A session (or a policy fetch) under an MTA-STS policy of `domain`, for TLS-RPT. */
  tls?(domain: string, policy: TlsRptPolicy, session: TlsRptSession): void;
}

export interface DirectSenderOptions {
  dns: DirectDns;
  /** The MX port: 25 (DIRECT_SMTP_PORT; tests use a local sink's). */
  port: number;
  /** Ceiling of a destination's concurrency limit, and its pools' size. */
  maxConnectionsPerHost: number;
  /** Deliveries after which a cut limit grows by one. */
  recoverAfter: number;
  /** Destination hosts kept (pools, limits, metric series). */
  maxPools: number;
  /** A pool unused this long is closed, a destination unused this long forgotten. */
  poolIdleMs: number;
  /** Longest wait for a slot at a destination. */
  slotWaitMs: number;
  connectionTimeoutMs: number;
  socketTimeoutMs: number;
  greetingTimeoutMs?: number;
  /** EHLO name; default the machine's hostname. */
  heloName?: string;
  /** TLS options merged over the defaults (no certificate check, SNI = MX host name). */
  tls?: ConnectionOptions;
  /** [0, 1), for the order of MX hosts of equal preference. */
  random?: () => number;
  observer?: DirectObserver;
  /** Called after every email with its combined outcome and wall time. Must not throw. */
  onResult?: (result: SendResult, ms: number) => void;
  /** MTA-STS policies (RFC 8461); absent: none are looked up. */
  mtaSts?: MtaSts;
  /** Extra trusted CA (PEM) for the MX certificate checks of MTA-STS (test-only MTA_STS_CA_FILE). */
  stsCa?: string;
  /** Sending IP pools and their warm-up; absent: the machine's default address. */
  pools?: SourcePools;
}

/** The sender, with a view of its destinations for tests and diagnostics. */
export interface DirectSender extends SmtpSender {
  /** The current concurrency limit of a destination host, undefined when not tracked. */
  limitOf(destination: string): number | undefined;
}

/** Addresses of one MX host tried per delivery attempt: its first two, IPv4 first. */
export const MAX_ADDRESSES_PER_HOST = 2;
const MAX_DETAIL = 500;

const NO_OBSERVER: DirectObserver = {
  limit: () => undefined,
  deferral: () => undefined,
  forget: () => undefined,
};

function safe(fn: () => void): void {
  try {
    fn();
  } catch {
    // metrics hooks never change an outcome
  }
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL - 1)}…` : text;
}

const smtpUrl = (address: string, port: number): string =>
  isIP(address) === 6 ? `smtp://[${address}]:${port}` : `smtp://${address}:${port}`;

/** `sts`: STARTTLS required and the certificate validated for the MX name (RFC 8461 section 4.2). */
type TlsPolicy = NonNullable<OutgoingMessage['tls']> | 'sts';

function reportPolicy(policy: StsPolicy): TlsRptPolicy {
  return { type: 'sts', lines: policy.lines, mxHost: policy.mx };
}

export function createDirectSender(opts: DirectSenderOptions): DirectSender {
  const observer = opts.observer ?? NO_OBSERVER;
  const random = opts.random ?? Math.random;
  const heloName = opts.heloName ?? hostname();
  const aimd = { max: opts.maxConnectionsPerHost, recoverAfter: opts.recoverAfter };
  let closing: Promise<void> | undefined;

  // Pools by address, TLS policy and name (the name is the TLS server name).
  const pools = new LRUCache<string, SmtpSender>({
    max: opts.maxPools,
    ttl: opts.poolIdleMs,
    updateAgeOnGet: true,
    ttlAutopurge: true,
    // in-flight sends finish first (SmtpSender#close); a new send opens a new pool
    dispose: (pool) => void pool.close(),
  });
  // Concurrency limits by destination host name: forgotten as pools are, so the metric series
  // stay bounded by maxPools.
  const gates = new LRUCache<string, DestinationGate>({
    max: opts.maxPools,
    ttl: opts.poolIdleMs,
    updateAgeOnGet: true,
    ttlAutopurge: true,
    dispose: (_gate, destination) => safe(() => observer.forget(destination)),
  });

  function gateFor(destination: string): DestinationGate {
    let gate = gates.get(destination);
    if (!gate) {
      gate = new DestinationGate(aimd, (limit) => safe(() => observer.limit(destination, limit)));
      gates.set(destination, gate);
      const initial = gate.state.limit;
      safe(() => observer.limit(destination, initial));
    }
    return gate;
  }

  const stsCa = opts.stsCa !== undefined ? [...rootCertificates, opts.stsCa] : undefined;

  function poolFor(host: string, address: string, tls: TlsPolicy, local: string | undefined): SmtpSender {
    const key = `${address}|${tls}|${host}|${local ?? ''}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = createSmtpSender({
        url: smtpUrl(address, opts.port),
        poolSize: opts.maxConnectionsPerHost,
        connectionTimeoutMs: opts.connectionTimeoutMs,
        socketTimeoutMs: opts.socketTimeoutMs,
        ...(opts.greetingTimeoutMs !== undefined && { greetingTimeoutMs: opts.greetingTimeoutMs }),
        name: heloName,
        starttls: tls === 'opportunistic' ? 'opportunistic' : 'require',
        ...(local !== undefined && { localAddress: local }),
        tls:
          tls === 'sts'
            ? // RFC 8461 section 4.2: a certificate valid for the MX host name, by the web PKI
              { ...opts.tls, rejectUnauthorized: true, servername: host, ...(stsCa && { ca: stsCa }) }
            : { rejectUnauthorized: false, ...(isIP(host) === 0 && { servername: host }), ...opts.tls },
      });
      pools.set(key, pool);
    }
    return pool;
  }

  function deferred(destination: string, reason: DeferralReason): void {
    safe(() => observer.deferral(destination, reason));
  }

  /** One attempt at one address of one host, under the host's concurrency limit. */
  async function attempt(
    host: string,
    address: string,
    msg: OutgoingMessage,
    tls: TlsPolicy,
    local: string | undefined,
  ): Promise<SendResult> {
    const gate = gateFor(host);
    const ticket = await gate.acquire(opts.slotWaitMs);
    if (ticket === null) {
      deferred(host, 'slot_timeout');
      return {
        kind: 'soft_fail',
        // no session was opened: the next host may be tried
        command: 'CONN',
        detail: `no free connection to ${host} within ${opts.slotWaitMs} ms (concurrency limit ${gate.state.limit})`,
      };
    }
    let result: SendResult;
    try {
      result = await poolFor(host, address, tls, local).send(msg);
    } catch (err) {
      // SmtpSender#send never rejects for an SMTP outcome; a bug must still free the slot
      gate.release(ticket, 'neutral');
      throw err;
    }
    gate.release(ticket, feedbackOf(result));
    if (result.kind === 'soft_fail' || (result.kind === 'hard_fail' && triesNextHost(result))) {
      const enforced = tls === 'enforced';
      if (tls === 'sts' && isTlsFailure(result)) return result;
      deferred(host, deferralReason(result, enforced));
      if (enforced && isTlsFailure(result)) {
        // a refused STARTTLS is a 5xx reply: still the host's setup, never the recipient's fault
        return {
          kind: 'soft_fail',
          ...(result.code !== undefined && { code: result.code }),
          command: 'STARTTLS',
          detail: clip(
            `TLS is enforced for this email and ${host} [${address}] did not complete STARTTLS: ${result.detail}`,
          ),
        };
      }
    }
    return result;
  }

  /** One SMTP transaction for the recipients of one domain. */
  async function deliverToDomain(
    domain: string,
    msg: OutgoingMessage,
    origin: SendOrigin | undefined,
  ): Promise<SendResult> {
    const route = routeFor(domain, await opts.dns.mx(domain), random);
    if (route.kind === 'bounce') {
      return { kind: 'hard_fail', code: route.code, enhancedCode: route.enhancedCode, detail: route.detail };
    }
    if (route.kind === 'defer') {
      deferred('(dns)', 'dns');
      return { kind: 'soft_fail', detail: clip(route.detail) };
    }
    const sts = opts.mtaSts ? await opts.mtaSts.lookup(domain) : {};
    const policy = sts.policy;
    const report = (session: TlsRptSession, under: TlsRptPolicy): void => {
      if (observer.tls) safe(() => observer.tls!(domain, under, session));
    };
    if (sts.failure) {
      // RFC 8460 section 4.3.2.3: a policy that could not be had is a failure of its own
      report(
        { ok: false, resultType: sts.failure.resultType, mx: `mta-sts.${domain}` },
        policy ? reportPolicy(policy) : { type: 'no-policy-found', lines: [], mxHost: [] },
      );
    }
    const candidates = stsCandidates(policy, route.hosts);
    for (const host of candidates.unlisted) {
      // the MX is not one the domain's policy names: in enforce mode it is never connected to
      report({ ok: false, resultType: 'validation-failure', mx: host }, reportPolicy(policy!));
    }
    if (policy?.mode === 'enforce' && candidates.hosts.length === 0) {
      // no host of the domain was tried: one series for all such domains, as `(dns)` (the unlisted
      // hosts are never connected to, so no destination of the limit's LRU would drop theirs)
      deferred('(mta-sts)', 'mta_sts');
      return {
        kind: 'soft_fail',
        detail: clip(
          `MTA-STS policy of ${domain} (enforce) lists none of its MX hosts (${route.hosts.join(', ')}): not delivered to any`,
        ),
      };
    }
    let local: string | undefined;
    if (opts.pools && candidates.hosts.length > 0) {
      const pick = await opts.pools.pick(origin ?? {}, candidates.hosts[0]!);
      if (pick.kind === 'warmup') {
        // tracked as a destination, so its series goes when the destination is forgotten
        gateFor(candidates.hosts[0]!);
        deferred(candidates.hosts[0]!, 'warmup');
        // no server was asked: a deferral, not an attempt (it spends none of the retry ladder)
        return {
          kind: 'soft_fail',
          detail: clip(pick.detail),
          retryAfterMs: pick.retryAfterMs,
          deferred: true,
        };
      }
      if (pick.kind === 'address') local = pick.address;
    }
    const failures: { where: string; result: SendResult }[] = [];
    let unresolved = 0;
    const hosts = candidates.hosts.slice(0, MAX_MX_HOSTS);
    for (const host of hosts) {
      const lookup = await opts.dns.addresses(host);
      if (lookup.kind !== 'addresses') {
        if (lookup.kind === 'none') unresolved += 1;
        else deferred('(dns)', 'dns');
        failures.push({ where: host, result: { kind: 'soft_fail', detail: lookup.detail } });
        continue;
      }
      const listed = policy !== undefined && !candidates.unlisted.includes(host);
      for (const address of lookup.addresses.slice(0, MAX_ADDRESSES_PER_HOST)) {
        let result: SendResult;
        if (listed) {
          result = await attempt(host, address, msg, 'sts', local);
          if (isTlsFailure(result)) {
            report(
              {
                ok: false,
                resultType: tlsResultType(result),
                mx: host,
                receivingIp: address,
                ...(local && { sendingIp: local }),
              },
              reportPolicy(policy),
            );
            if (policy.mode === 'enforce') {
              // never downgraded: the next listed host, or the email deferred
              deferred(host, 'mta_sts');
              failures.push({
                where: `${host} [${address}]`,
                result: {
                  kind: 'soft_fail',
                  command: 'STARTTLS',
                  detail: `MTA-STS policy of ${domain} (enforce): ${result.kind === 'sent' ? '' : result.detail}`,
                },
              });
              continue;
            }
            // testing mode: reported, then delivered as without a policy
            result = await attempt(host, address, msg, msg.tls ?? 'opportunistic', local);
          } else if (!triesNextHost(result)) {
            report({ ok: true }, reportPolicy(policy));
          }
        } else {
          result = await attempt(host, address, msg, msg.tls ?? 'opportunistic', local);
        }
        if (!triesNextHost(result)) return result;
        failures.push({ where: `${host} [${address}]`, result });
      }
    }
    if (unresolved === hosts.length && hosts.length === route.hosts.length) {
      // RFC 5321 section 5.1: no address for any host (nor the domain itself) — no route
      return {
        kind: 'hard_fail',
        code: 550,
        enhancedCode: route.implicit ? '5.1.2' : '5.4.4',
        detail: route.implicit
          ? `Domain ${domain} has no MX, A or AAAA record`
          : `No MX host of ${domain} has an address (${route.hosts.join(', ')})`,
      };
    }
    return summarize(domain, failures);
  }

  async function deliver(msg: OutgoingMessage, origin: SendOrigin | undefined): Promise<SendResult> {
    const groups = groupByDomain(msg.envelope.to);
    if (groups.length === 0) return { kind: 'hard_fail', code: 550, command: 'API', detail: 'No recipients' };
    const results = await Promise.all(
      groups.map((g) =>
        deliverToDomain(g.domain, { ...msg, envelope: { ...msg.envelope, to: g.recipients } }, origin),
      ),
    );
    if (results.length === 1) return results[0]!;
    const combined = combineSendResults(
      results,
      groups.map((g) => g.recipients),
    );
    return combined.kind === 'sent' && combined.rejected !== undefined
      ? { ...combined, rejected: [...combined.rejected] }
      : (combined as SendResult);
  }

  function report(result: SendResult, ms: number): void {
    if (opts.onResult) safe(() => opts.onResult!(result, ms));
  }

  return {
    async send(msg, origin) {
      const started = performance.now();
      const result: SendResult =
        closing !== undefined
          ? { kind: 'soft_fail', detail: 'SMTP sender is closed' }
          : await deliver(msg, origin);
      report(result, performance.now() - started);
      return result;
    },
    // Nothing to check at start: every destination is looked up when mail goes to it.
    verify: () => Promise.resolve(true),
    limitOf: (destination) => gates.peek(destination.toLowerCase())?.state.limit,
    close() {
      closing ??= (async () => {
        const open = [...pools.values()];
        pools.clear();
        gates.clear();
        await Promise.all(open.map((p) => p.close()));
      })();
      return closing;
    },
  };
}

/**
 * Every host failed before a transaction: a soft fail when any failure was temporary (another
 * attempt later may find a host up), else the first permanent one (a 554 greeting from all).
 * The detail names each host and what it said.
 */
function summarize(domain: string, failures: readonly { where: string; result: SendResult }[]): SendResult {
  const detail = clip(
    `No MX host of ${domain} took the email: ${failures
      .map((f) => `${f.where}: ${f.result.kind === 'sent' ? f.result.response : f.result.detail}`)
      .join('; ')}`,
  );
  const soft = failures.find((f) => f.result.kind === 'soft_fail')?.result;
  if (soft?.kind === 'soft_fail') {
    const out: SendResult = { kind: 'soft_fail', detail };
    if (soft.code !== undefined) out.code = soft.code;
    if (soft.enhancedCode !== undefined) out.enhancedCode = soft.enhancedCode;
    if (soft.retryAfterMs !== undefined) out.retryAfterMs = soft.retryAfterMs;
    if (soft.command !== undefined) out.command = soft.command;
    return out;
  }
  const hard = failures.find((f) => f.result.kind === 'hard_fail')?.result;
  if (hard?.kind === 'hard_fail') return { ...hard, detail };
  return { kind: 'soft_fail', detail };
}

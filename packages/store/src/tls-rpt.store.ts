/**
 * TLS-RPT counters (RFC 8460) and the state of the daily report run (packages/core tls-rpt.ts).
 *
 * Recording is per session of direct delivery, so it is counted in memory and flushed every
 * `flushMs` (and on close): per reporting period and policy domain one transaction of HINCRBYs
 * under the period's tag, plus one ZADD of the period to the pending set. A worker that dies
 * loses at most one flush interval of counts — a report is statistics, not a ledger.
 */
import { createHash } from 'node:crypto';
import type {
  TlsReportPorts,
  TlsRptCounts,
  TlsRptPolicy,
  TlsRptRecorder,
  TlsRptResultType,
  TlsRptSession,
} from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { execAll, transaction } from './scripts.js';

/** Counters outlive their period by a week: a report run that was down for days still finds them. */
const KEEP_MS = 8 * 86_400_000;
/** A claimed report stays claimed this long (a crashed run's claim frees itself). */
const CLAIM_MS = 2 * 86_400_000;
const SEP = '|';

const policyKey = (policy: TlsRptPolicy): string =>
  createHash('sha256').update(JSON.stringify(policy)).digest('hex').slice(0, 16);

export class TlsRptStore
  implements
    TlsRptRecorder,
    Pick<TlsReportPorts, 'pendingPeriods' | 'domains' | 'counts' | 'claim' | 'release' | 'finish'>
{
  /** period → domain → field → count; policies by key. */
  private pending = new Map<
    number,
    Map<string, { fields: Map<string, number>; policies: Map<string, string> }>
  >();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly opts: { periodMs: number; flushMs?: number; clock?: { now(): number } } = {
      periodMs: 86_400_000,
    },
  ) {}

  record(domain: string, policy: TlsRptPolicy, session: TlsRptSession): void {
    const period = Math.floor((this.opts.clock ?? Date).now() / this.opts.periodMs);
    let byDomain = this.pending.get(period);
    if (!byDomain) this.pending.set(period, (byDomain = new Map()));
    let entry = byDomain.get(domain);
    if (!entry) byDomain.set(domain, (entry = { fields: new Map(), policies: new Map() }));
    const pk = policyKey(policy);
    entry.policies.set(pk, JSON.stringify(policy));
    const field = session.ok
      ? ['ok', pk].join(SEP)
      : ['ko', pk, session.resultType, session.mx, session.receivingIp ?? '', session.sendingIp ?? ''].join(
          SEP,
        );
    entry.fields.set(field, (entry.fields.get(field) ?? 0) + 1);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, this.opts.flushMs ?? 1_000);
    this.timer.unref?.();
  }

  /** Writes what was counted since the last flush; counts of a failed write are kept for the next. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.pending;
      this.pending = new Map();
      for (const [period, byDomain] of batch) {
        for (const [domain, entry] of byDomain) {
          try {
            await this.write(period, domain, entry);
          } catch (err) {
            for (const [field, n] of entry.fields) this.requeue(period, domain, field, n, entry.policies);
            throw err;
          }
        }
      }
    });
    return this.flushing;
  }

  private requeue(
    period: number,
    domain: string,
    field: string,
    n: number,
    policies: Map<string, string>,
  ): void {
    let byDomain = this.pending.get(period);
    if (!byDomain) this.pending.set(period, (byDomain = new Map()));
    let entry = byDomain.get(domain);
    if (!entry) byDomain.set(domain, (entry = { fields: new Map(), policies: new Map() }));
    for (const [k, v] of policies) entry.policies.set(k, v);
    entry.fields.set(field, (entry.fields.get(field) ?? 0) + n);
  }

  private async write(
    period: number,
    domain: string,
    entry: { fields: Map<string, number>; policies: Map<string, string> },
  ): Promise<void> {
    const counts = this.keys.tlsRptCounts(period, domain);
    const policies = this.keys.tlsRptPolicies(period, domain);
    const domains = this.keys.tlsRptDomains(period);
    const multi = transaction(this.redis, 'tls-rpt flush');
    for (const [field, n] of entry.fields) multi.hincrby(counts, field, n);
    for (const [k, v] of entry.policies) multi.hsetnx(policies, k, v);
    multi.sadd(domains, domain);
    for (const key of [counts, policies, domains]) multi.pexpire(key, KEEP_MS);
    await execAll(multi);
    await this.redis.zadd(this.keys.tlsRptPeriods(), period, String(period));
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }

  async pendingPeriods(beforePeriod: number): Promise<number[]> {
    const members = await this.redis.zrangebyscore(this.keys.tlsRptPeriods(), '-inf', `(${beforePeriod}`);
    return members.map(Number);
  }

  domains(period: number): Promise<string[]> {
    return this.redis.smembers(this.keys.tlsRptDomains(period));
  }

  async counts(period: number, domain: string): Promise<TlsRptCounts> {
    const [fields, policies] = await Promise.all([
      this.redis.hgetall(this.keys.tlsRptCounts(period, domain)),
      this.redis.hgetall(this.keys.tlsRptPolicies(period, domain)),
    ]);
    const byPolicy = new Map<string, TlsRptCounts['policies'][number]>();
    for (const [pk, json] of Object.entries(policies)) {
      byPolicy.set(pk, { policy: JSON.parse(json) as TlsRptPolicy, successes: 0, failures: [] });
    }
    for (const [field, value] of Object.entries(fields)) {
      const [kind, pk, resultType, mx, receivingIp, sendingIp] = field.split(SEP);
      const entry = byPolicy.get(pk ?? '');
      if (!entry) continue;
      if (kind === 'ok') entry.successes += Number(value);
      else
        entry.failures.push({
          resultType: resultType as TlsRptResultType,
          mx: mx ?? '',
          ...(receivingIp ? { receivingIp } : {}),
          ...(sendingIp ? { sendingIp } : {}),
          count: Number(value),
        });
    }
    return { policies: [...byPolicy.values()] };
  }

  async claim(period: number, domain: string): Promise<boolean> {
    return (await this.redis.set(this.keys.tlsRptSent(period, domain), '1', 'PX', CLAIM_MS, 'NX')) === 'OK';
  }

  async release(period: number, domain: string): Promise<void> {
    await this.redis.del(this.keys.tlsRptSent(period, domain));
  }

  async finish(period: number): Promise<void> {
    await this.redis.zrem(this.keys.tlsRptPeriods(), String(period));
  }
}

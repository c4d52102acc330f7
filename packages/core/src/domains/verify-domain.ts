/**
 * Looking a domain's records up in DNS and giving each a status:
 *
 * - `verified`: the name answers with the expected value (DKIM: a key record whose `p=` is ours,
 *   RFC 6376 section 3.6.1; SPF: our policy; MX: our exchange among the answers);
 * - `failed`: the name does not exist (NXDOMAIN), has no record of that type (NODATA), or none
 *   of its records is ours;
 * - `temporary_failure`: DNS could not say (SERVFAIL, timeout, refused): a record that was
 *   verified stays verified through it, so a resolver hiccup never unverifies a sending domain.
 *
 * The DNS port is node:dns/promises in production (packages/store's domains.dns.ts).
 */
import type { DomainRecordSet, DomainRecordStatus } from '@petrel/contracts';
import type { ExpectedRecord } from './domain-records.js';

/** One lookup's answer: the records, none (NXDOMAIN or NODATA), or DNS trouble. */
export type DnsAnswer<T> =
  { kind: 'found'; values: T[] } | { kind: 'none' } | { kind: 'error'; detail: string };

export interface DnsPort {
  /** TXT records of `name`, each one's character-strings joined (RFC 7208 section 3.3). */
  txt(name: string): Promise<DnsAnswer<string>>;
  mx(name: string): Promise<DnsAnswer<{ exchange: string; priority: number }>>;
}

const hostKey = (h: string): string => h.trim().replace(/\.$/, '').toLowerCase();
const spaced = (v: string): string => v.trim().replace(/\s+/g, ' ').toLowerCase();

/** The tag=value pairs of a DKIM key record (RFC 6376 section 3.2); whitespace inside values dropped. */
function dkimTags(txt: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of txt.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/** Whether one answered value is the expected record. */
function matches(expected: ExpectedRecord, value: string): boolean {
  if (expected.record === 'DKIM') return dkimTags(value).get('p') === dkimTags(expected.value).get('p');
  return spaced(value) === spaced(expected.value);
}

/** The status of one record from DNS. */
export async function checkRecord(expected: ExpectedRecord, dns: DnsPort): Promise<DomainRecordStatus> {
  if (expected.type === 'MX') {
    const answer = await dns.mx(expected.name);
    if (answer.kind === 'error') return 'temporary_failure';
    if (answer.kind === 'none') return 'failed';
    return answer.values.some((mx) => hostKey(mx.exchange) === hostKey(expected.value))
      ? 'verified'
      : 'failed';
  }
  const answer = await dns.txt(expected.name);
  if (answer.kind === 'error') return 'temporary_failure';
  if (answer.kind === 'none') return 'failed';
  return answer.values.some((v) => matches(expected, v)) ? 'verified' : 'failed';
}

/**
 * The statuses of every record of a domain after a lookup, by record key; a temporary failure
 * keeps a record that was verified verified (see header).
 */
export async function checkRecords(
  domain: Pick<DomainRecordSet, 'checks'>,
  records: readonly ExpectedRecord[],
  dns: DnsPort,
): Promise<Record<string, DomainRecordStatus>> {
  const statuses = await Promise.all(records.map((r) => checkRecord(r, dns)));
  const out: Record<string, DomainRecordStatus> = {};
  records.forEach((r, i) => {
    const now = statuses[i]!;
    out[r.key] = now === 'temporary_failure' && domain.checks[r.key] === 'verified' ? 'verified' : now;
  });
  return out;
}

/**
 * The DNS records a domain asks its owner to publish, built from the stored domain (its DKIM
 * public keys, return-path label and capabilities) and the deployment's host names:
 *
 * - DKIM: a TXT record `<selector>._domainkey.<domain>` per key (RFC 6376 section 3.6.1; an
 *   Ed25519 key as RFC 8463 section 4.2 publishes it, `k=ed25519`, the raw 32-byte key);
 * - SPF: on the return-path subdomain (`send.<domain>`), the domain of the envelope sender that
 *   SPF checks (RFC 7208 section 2.4), a TXT policy and an MX so bounces to the VERP return
 *   path reach Petrel's inbound server (RFC 5321 section 4.5.5);
 * - Receiving: an MX on the domain itself, when receiving is enabled;
 * - a suggested DMARC policy (`_dmarc.<domain>`, RFC 7489 section 6.3), outside the status.
 *
 * Pure: the verification compares what DNS answers with these (verify-domain.ts).
 */
import type {
  DkimPublicKey,
  DomainRecord,
  DomainRecordSet,
  DomainRecordStatus,
  SuggestedRecord,
} from '@petrel/contracts';

/** The host names of the deployment that the records point at. */
export interface DomainDnsTargets {
  /** Exchange of the return-path MX (where bounces go) and of the receiving MX. */
  mxHost: string;
  /** The SPF policy published on the return-path subdomain (`v=spf1 … ~all`). */
  spf: string;
}

/** Resend's TTL spelling: the DNS provider's default. */
const TTL = 'Auto';
/** Preference of the MX records (RFC 5321 section 5.1: lower is preferred; one host). */
export const DOMAIN_MX_PRIORITY = 10;

/** A published record with what identifies it across checks (`recordKey`). */
export interface ExpectedRecord extends DomainRecord {
  key: string;
}

/** The return-path subdomain of a domain: `<custom_return_path>.<name>`. */
export const returnPathDomain = (d: Pick<DomainRecordSet, 'name' | 'custom_return_path'>): string =>
  `${d.custom_return_path}.${d.name}`;

/** The DKIM TXT value of a public key (RFC 6376 section 3.6.1, RFC 8463 section 4.2). */
export function dkimTxtValue(key: Pick<DkimPublicKey, 'algorithm' | 'publicKey'>): string {
  const k = key.algorithm === 'ed25519-sha256' ? 'ed25519' : 'rsa';
  return `v=DKIM1; k=${k}; p=${key.publicKey}`;
}

/** The records of `domain`, in Resend's order (DKIM, SPF MX, SPF TXT, Receiving), each with its last status. */
export function domainRecords(domain: DomainRecordSet, targets: DomainDnsTargets): ExpectedRecord[] {
  const out: ExpectedRecord[] = [];
  const status = (key: string): DomainRecordStatus => domain.checks[key] ?? 'not_started';
  const add = (r: Omit<ExpectedRecord, 'status' | 'ttl'>) =>
    out.push({ ...r, ttl: TTL, status: status(r.key) });
  if (domain.capabilities.sending === 'enabled') {
    for (const key of domain.dkim) {
      add({
        key: `dkim:${key.selector}`,
        record: 'DKIM',
        name: `${key.selector}._domainkey.${domain.name}`,
        type: 'TXT',
        value: dkimTxtValue(key),
      });
    }
    const rp = returnPathDomain(domain);
    add({
      key: 'spf:mx',
      record: 'SPF',
      name: rp,
      type: 'MX',
      value: targets.mxHost,
      priority: DOMAIN_MX_PRIORITY,
    });
    add({ key: 'spf:txt', record: 'SPF', name: rp, type: 'TXT', value: targets.spf });
  }
  if (domain.capabilities.receiving === 'enabled') {
    add({
      key: 'receiving:mx',
      record: 'Receiving',
      name: domain.name,
      type: 'MX',
      value: targets.mxHost,
      priority: DOMAIN_MX_PRIORITY,
    });
  }
  return out;
}

/** The records as the wire shows them (without the internal key). */
export function wireRecords(records: readonly ExpectedRecord[]): DomainRecord[] {
  return records.map(({ key: _key, ...r }) => r);
}

/**
 * The DMARC policy suggested to start with: `p=none` monitors without affecting delivery
 * (RFC 7489 section 6.3), the usual first step before quarantine or reject.
 */
export function suggestedDmarc(domain: Pick<DomainRecordSet, 'name'>): SuggestedRecord {
  return { name: `_dmarc.${domain.name}`, type: 'TXT', ttl: TTL, value: 'v=DMARC1; p=none;' };
}

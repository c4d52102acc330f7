/**
 * The ports of the domain use-cases. DomainsStore (packages/store) satisfies `DomainsPort`: it
 * generates the DKIM key pairs, keeps the private keys encrypted, and appends each write's
 * domain.* event to the team's events stream in the same script as the write.
 */
import type { DkimAlgorithm, DomainRecordSet, DomainTls } from '@petrel/contracts';
import type { Page, PageRequest } from '../kernel/page.js';

/** A new domain with every option resolved; the store adds id, keys, times and status. */
export type NewDomain = Pick<
  DomainRecordSet,
  | 'name'
  | 'region'
  | 'custom_return_path'
  | 'capabilities'
  | 'open_tracking'
  | 'click_tracking'
  | 'tls'
  | 'tracking_subdomain'
> & {
  /** The DKIM keys to generate: one selector per algorithm. */
  dkim: { selector: string; algorithm: DkimAlgorithm }[];
};

/** Builds the `data` of a domain.* event from the record the write stores. */
export type DomainEventData = (domain: DomainRecordSet) => Record<string, unknown>;

/** What the write does to the current record: the next record, or `unchanged` (no write, no event). */
export type DomainChange = (current: DomainRecordSet) => DomainRecordSet | 'unchanged';

export interface DomainsPort {
  create(
    teamId: string,
    input: NewDomain,
    event: DomainEventData,
  ): Promise<{ ok: true; domain: DomainRecordSet } | { ok: false; reason: 'name_taken' }>;
  get(teamId: string, domainId: string): Promise<DomainRecordSet | null>;
  /** The team's domain of this (normalized) name. */
  byName(teamId: string, name: string): Promise<DomainRecordSet | null>;
  /** Newest first; null when the cursor names no domain. */
  list(teamId: string, page: PageRequest): Promise<Page<DomainRecordSet> | null>;
  /**
   * Applies `change` to the current record, optimistically (retried when another write came
   * between); the record written, the current one when unchanged, or null when there is none.
   */
  update(
    teamId: string,
    domainId: string,
    change: DomainChange,
    event: DomainEventData,
  ): Promise<DomainRecordSet | null>;
  /** Deletes the domain and its keys; the deleted record, or null. */
  remove(teamId: string, domainId: string, event: DomainEventData): Promise<DomainRecordSet | null>;
}

/** A DKIM key ready to sign with: the private key as PEM, decrypted (never logged). */
export interface DkimSigningKey {
  selector: string;
  algorithm: DkimAlgorithm;
  privateKeyPem: string;
}

/** What sending needs of the from-domain (read per email: the adapter caches it). */
export interface SendingDomain {
  id: string;
  name: string;
  /** `<custom_return_path>.<name>`: the domain of the VERP return path. */
  returnPathDomain: string;
  tls: DomainTls;
  /** Every sending record verified (status rule in domain-status.ts). */
  verified: boolean;
  /** The keys to sign with (RSA first, then Ed25519 when configured). */
  keys: DkimSigningKey[];
}

export interface SendingDomains {
  /** The team's domain named `name` (normalized), with decrypted keys; null when there is none. */
  forSending(teamId: string, name: string): Promise<SendingDomain | null>;
}

/** Signs a message with a domain's keys (packages/mailer: mailauth); one DKIM-Signature per key. */
export interface DkimSigner {
  /** The message with the DKIM-Signature header fields prepended (RFC 6376 section 5.6). */
  sign(raw: Buffer, signing: { domain: string; keys: readonly DkimSigningKey[] }): Promise<Buffer>;
}

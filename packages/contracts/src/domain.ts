/**
 * Sending domains as Resend's domains API names them (https://resend.com/docs/api-reference/domains):
 * the wire values of a domain and of the DNS records it asks its owner to publish, shared by the
 * domain use-cases, the store, the routes, the scheduler's checks and the webhook payloads.
 */

/** Where Resend sends from; accepted and echoed (Petrel sends from wherever it runs). */
export const DOMAIN_REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export type DomainRegion = (typeof DOMAIN_REGIONS)[number];

/** TLS on delivery: `opportunistic` uses STARTTLS when offered; `enforced` refuses a hop without it. */
export const DOMAIN_TLS_MODES = ['opportunistic', 'enforced'] as const;
export type DomainTls = (typeof DOMAIN_TLS_MODES)[number];

export const CAPABILITY_STATES = ['enabled', 'disabled'] as const;
export type CapabilityState = (typeof CAPABILITY_STATES)[number];

export interface DomainCapabilities {
  sending: CapabilityState;
  receiving: CapabilityState;
}

/** Status of one DNS record: checked and found (`verified`), absent or wrong (`failed`), DNS trouble (`temporary_failure`). */
export const RECORD_STATUSES = ['pending', 'verified', 'failed', 'temporary_failure', 'not_started'] as const;
export type DomainRecordStatus = (typeof RECORD_STATUSES)[number];

/** Status of a domain, derived from its records (core: `domainStatus`). */
export const DOMAIN_STATUSES = [
  'pending',
  'verified',
  'failed',
  'not_started',
  'partially_verified',
  'partially_failed',
] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** What a record is for (Resend's `record` field). */
export type DomainRecordPurpose = 'SPF' | 'DKIM' | 'Receiving';
export type DnsRecordKind = 'MX' | 'TXT' | 'CNAME';

/** A DNS record a domain asks its owner to publish, with its last check's status. */
export interface DomainRecord {
  record: DomainRecordPurpose;
  /** The record's full name (`petrel._domainkey.example.com`). */
  name: string;
  type: DnsRecordKind;
  /** Resend's TTL spelling: `Auto`. */
  ttl: string;
  status: DomainRecordStatus;
  value: string;
  /** MX records only. */
  priority?: number;
}

/**
 * A recommended DMARC policy (RFC 7489 section 6.3), shown beside the records: it does not take
 * part in the domain's status (Resend's record list has no DMARC kind), so a domain verifies
 * without it.
 */
export interface SuggestedRecord {
  name: string;
  type: 'TXT';
  ttl: string;
  value: string;
}

/** DKIM signing algorithms a domain may have a key for (RFC 6376, RFC 8463). */
export type DkimAlgorithm = 'rsa-sha256' | 'ed25519-sha256';

/** The public half of a domain's DKIM key: what its DNS record publishes. */
export interface DkimPublicKey {
  selector: string;
  algorithm: DkimAlgorithm;
  /** Base64 of the DER SubjectPublicKeyInfo (RSA) or of the raw 32-byte key (Ed25519, RFC 8463 section 4.2). */
  publicKey: string;
}

/** A domain as stored (timestamps ISO 8601). Private keys are stored apart, encrypted. */
export interface DomainRecordSet {
  id: string;
  /** Lower case, A-labels for an IDN. */
  name: string;
  region: DomainRegion;
  /** The return-path subdomain label (`send` → `send.example.com`). */
  custom_return_path: string;
  capabilities: DomainCapabilities;
  open_tracking: boolean;
  click_tracking: boolean;
  tls: DomainTls;
  tracking_subdomain: string | null;
  dkim: DkimPublicKey[];
  /** Last check's status per record key (see core's `recordKey`); absent = never checked. */
  checks: Record<string, DomainRecordStatus>;
  status: DomainStatus;
  created_at: string;
  updated_at: string;
  /** When the records were last looked up; null before the first check. */
  checked_at: string | null;
}

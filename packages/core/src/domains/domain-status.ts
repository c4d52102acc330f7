/**
 * A domain's status, derived from its records' statuses. Records are grouped by the capability
 * they serve (sending: DKIM and SPF; receiving: the MX); a capability is verified when every one
 * of its records is. Then:
 *
 * | records                                              | domain               |
 * |------------------------------------------------------|----------------------|
 * | never looked up                                      | `not_started`        |
 * | every enabled capability verified                    | `verified`           |
 * | some capability verified, another not                | `partially_verified` |
 * | none verified, some record `failed`                  | `failed`             |
 * | none verified, none failed (pending, DNS trouble)    | `pending`            |
 *
 * `sending` decides whether the domain may send (the acceptance check): a domain whose receiving
 * MX is missing still sends once DKIM and SPF are in place.
 */
import type { DomainRecordStatus, DomainStatus } from '@petrel/contracts';

export interface StatusInput {
  record: 'SPF' | 'DKIM' | 'Receiving';
  status: DomainRecordStatus;
}

type CapabilityState = 'verified' | 'failed' | 'pending' | 'not_started';

function capabilityState(records: readonly StatusInput[]): CapabilityState {
  if (records.every((r) => r.status === 'verified')) return 'verified';
  if (records.some((r) => r.status === 'failed')) return 'failed';
  if (records.every((r) => r.status === 'not_started')) return 'not_started';
  return 'pending';
}

/** The state of each enabled capability (a capability without records is absent). */
export function capabilityStates(records: readonly StatusInput[]): {
  sending?: CapabilityState;
  receiving?: CapabilityState;
} {
  const sending = records.filter((r) => r.record !== 'Receiving');
  const receiving = records.filter((r) => r.record === 'Receiving');
  return {
    ...(sending.length > 0 && { sending: capabilityState(sending) }),
    ...(receiving.length > 0 && { receiving: capabilityState(receiving) }),
  };
}

export function domainStatus(records: readonly StatusInput[]): DomainStatus {
  if (records.length === 0 || records.every((r) => r.status === 'not_started')) return 'not_started';
  const states = Object.values(capabilityStates(records));
  const verified = states.filter((s) => s === 'verified').length;
  if (verified === states.length) return 'verified';
  if (verified > 0) return 'partially_verified';
  return states.includes('failed') ? 'failed' : 'pending';
}

/** Whether the domain's sending records are all verified: it may be a `from` domain. */
export function canSend(records: readonly StatusInput[]): boolean {
  return capabilityStates(records).sending === 'verified';
}

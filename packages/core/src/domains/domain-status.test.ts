import { describe, expect, it } from 'vitest';
import type { DomainRecordStatus, DomainStatus } from '@petrel/contracts';
import { canSend, domainStatus, type StatusInput } from './domain-status.js';

/** DKIM, SPF MX, SPF TXT, then the receiving MX when given. */
function records(sending: DomainRecordStatus[], receiving?: DomainRecordStatus): StatusInput[] {
  const [dkim, mx, txt] = sending;
  const out: StatusInput[] = [
    { record: 'DKIM', status: dkim! },
    { record: 'SPF', status: mx! },
    { record: 'SPF', status: txt! },
  ];
  if (receiving) out.push({ record: 'Receiving', status: receiving });
  return out;
}

const V = 'verified';
const F = 'failed';
const T = 'temporary_failure';
const N = 'not_started';
const P = 'pending';

describe('domainStatus', () => {
  it.each<[string, StatusInput[], DomainStatus, boolean]>([
    ['never checked', records([N, N, N]), 'not_started', false],
    ['every sending record found', records([V, V, V]), 'verified', true],
    ['DKIM missing', records([F, V, V]), 'failed', false],
    ['SPF TXT wrong', records([V, V, F]), 'failed', false],
    ['DNS trouble on a record never verified', records([V, T, V]), 'pending', false],
    ['some still pending', records([V, P, V]), 'pending', false],
    ['sending and receiving verified', records([V, V, V], V), 'verified', true],
    ['sending verified, receiving MX missing', records([V, V, V], F), 'partially_verified', true],
    ['receiving verified, sending failed', records([F, V, V], V), 'partially_verified', false],
    ['both failed', records([F, F, F], F), 'failed', false],
    ['receiving only, verified', [{ record: 'Receiving', status: V }], 'verified', false],
    ['no records at all', [], 'not_started', false],
  ])('%s', (_what, input, status, sends) => {
    expect(domainStatus(input)).toBe(status);
    expect(canSend(input)).toBe(sends);
  });
});

/**
 * Which sent email a bounce or a complaint is about. In order of trust:
 *
 * 1. the VERP return path it was sent to (`bounces+<emailId>@BOUNCE_DOMAIN`, or at the
 *    return-path subdomain of a team's sending domain: verp.ts): the envelope recipient of the
 *    report, as every DSN goes to the return path;
 * 2. the return path recorded in the returned message (`Return-Path`, RFC 5321 section 4.4) or
 *    an ARF report's `Original-Mail-From` (RFC 5965 section 3.2): feedback loops report to the
 *    address registered with them, not to the return path;
 * 3. the returned message's `Message-ID`, `<emailId@domain>` as Petrel writes it.
 *
 * These are candidates only: the caller looks each one up and takes the first email that
 * exists, so a forged or foreign id matches nothing.
 */
import { field } from './report-fields.js';
import { emailIdOfMessageId, parseVerp } from '../deliver/verp.js';

export interface EmailReference {
  /** Envelope recipients of the report (RCPT TO). */
  envelopeRecipients: readonly string[];
  /** The configured bounce domain; VERP addresses elsewhere are not ours. */
  bounceDomain: string | undefined;
  /** Return-path subdomains of the teams' sending domains (`send.example.com`): VERP there is ours too. */
  isReturnPathDomain?: (domain: string) => boolean;
  /** Header fields of the returned message (names lower-cased). */
  originalHeaders: Map<string, string[]>;
  /** ARF's Original-Mail-From. */
  originalMailFrom?: string | undefined;
}

/** Candidate email ids, most trusted first, without repeats. */
export function emailIdCandidates(ref: EmailReference): string[] {
  const out: string[] = [];
  const add = (id: string | null) => {
    if (id !== null && !out.includes(id)) out.push(id);
  };
  const { bounceDomain, isReturnPathDomain } = ref;
  const verp = (address: string) =>
    parseVerp(address, bounceDomain) ?? (isReturnPathDomain ? parseVerp(address, isReturnPathDomain) : null);
  for (const rcpt of ref.envelopeRecipients) add(verp(rcpt));
  for (const rp of ref.originalHeaders.get('return-path') ?? []) add(verp(rp));
  if (ref.originalMailFrom !== undefined) add(verp(ref.originalMailFrom));
  const messageId = field(ref.originalHeaders, 'message-id');
  if (messageId !== undefined) add(emailIdOfMessageId(messageId));
  return out;
}

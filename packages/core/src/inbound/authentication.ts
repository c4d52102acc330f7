/**
 * What the inbound server learns about who sent a message (SPF, RFC 7208; DKIM, RFC 6376;
 * DMARC, RFC 7489; ARC, RFC 8617; BIMI, draft-brand-indicators-for-message-identification), and
 * the two decisions Petrel takes on it:
 *
 * 1. `dmarcRefusal`: a message whose author domain publishes `p=reject` (or `sp=reject` for a
 *    subdomain) and fails DMARC is refused at SMTP time with 550 5.7.1 (RFC 7489 section 6.6 and
 *    its 6.7 on rejecting during the SMTP transaction). A policy applied to a sample only
 *    (`pct` < 100) is not enforced here: the message may be in the part left out (section 6.6.4),
 *    so it is accepted and its result recorded.
 * 2. `reportTrust`: whether a delivery status notification (RFC 3464) or an abuse report
 *    (RFC 5965) may suppress an address. Anyone can write a DSN naming a sent email: its id is in
 *    the Message-ID every recipient sees, so matching a VERP return path proves nothing. A report
 *    is trusted only when its author domain (the report's From: the reporting MTA's or feedback
 *    loop's domain) is authenticated:
 *    - DMARC `pass` (SPF or DKIM passed for a domain aligned with From, under the domain's own
 *      alignment modes); or
 *    - the domain publishes no DMARC record (`none`) and SPF or DKIM passed for a domain aligned
 *      with From in the relaxed sense (same organizational domain, RFC 7489 section 3.1): the
 *      test DMARC would apply, for the many MTAs whose domains publish no policy.
 *    Everything else — DMARC `fail`, a DNS error (`temperror`/`permerror`), no From — is not
 *    trusted: the report is dropped without recording an event or suppressing anyone (a forged
 *    bounce must not unsubscribe a customer, nor fire `email.bounced` at the team's webhooks).
 *
 * The checks themselves run in an adapter (packages/mailer's mailauth authenticator) behind
 * {@link MessageAuthenticator}; what follows from their results is decided here.
 */
import type { InboundAuthentication } from '@petrel/contracts';

/** A message's results and the Authentication-Results field (RFC 8601) that states them. */
export interface AuthenticatedMessage {
  results: InboundAuthentication;
  /** `Authentication-Results: <authserv-id>; …` folded, ending with CRLF, to prepend to the message. */
  header: string;
}

/** The SMTP transaction facts SPF needs (RFC 7208 section 4.1). */
export interface SmtpEnvelopeFacts {
  /** The client's IP address. */
  ip: string;
  /** The EHLO/HELO name. */
  helo: string;
  /** MAIL FROM; null for the null reverse-path `<>` (SPF then checks the HELO name). */
  mailFrom: string | null;
}

/** Runs SPF, DKIM, DMARC, ARC and BIMI on a message (DNS through an injectable resolver). */
export interface MessageAuthenticator {
  authenticate(raw: Buffer, envelope: SmtpEnvelopeFacts): Promise<AuthenticatedMessage>;
}

/** The 550 reply text for a message its author domain's DMARC policy says to reject, else null. */
export function dmarcRefusal(a: InboundAuthentication): string | null {
  const d = a.dmarc;
  if (d.result !== 'fail' || d.policy !== 'reject' || (d.pct ?? 100) < 100) return null;
  return `5.7.1 Rejected by the DMARC policy of ${d.domain ?? 'the sender'}: the message is not authenticated`;
}

export type ReportTrust = { trusted: true; by: string } | { trusted: false; reason: string };

/** Whether a DSN or an ARF report may act on sent emails (see the header). */
export function reportTrust(a: InboundAuthentication): ReportTrust {
  const d = a.dmarc;
  const aligned =
    d.alignment.dkim !== null
      ? `dkim ${d.alignment.dkim}`
      : d.alignment.spf !== null
        ? `spf ${d.alignment.spf}`
        : null;
  if (d.result === 'pass') return { trusted: true, by: `dmarc pass (${aligned ?? 'aligned'})` };
  if (d.result === 'none' && d.domain !== null && aligned !== null) {
    return { trusted: true, by: `no DMARC policy; ${aligned} aligned with ${d.domain}` };
  }
  if (d.domain === null) return { trusted: false, reason: 'no single From address to authenticate' };
  if (d.result === 'none') {
    return { trusted: false, reason: `neither SPF nor DKIM passed for a domain aligned with ${d.domain}` };
  }
  return { trusted: false, reason: `dmarc ${d.result} for ${d.domain}` };
}

/**
 * `raw` without the Authentication-Results fields that claim to be this server's (their
 * authserv-id is `authservId`): RFC 8601 section 5 — a field arriving with our own id was
 * written by someone else, and a reader trusting our results must not be shown a forged one.
 * Only the header section is read; fields of other servers are kept, folded lines included.
 * Returns `raw` itself when there is nothing to remove.
 */
export function withoutForgedAuthResults(raw: Buffer, authservId: string): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end < 0 ? raw.length : end + 2).toString('latin1');
  if (!/^authentication-results\s*:/im.test(head)) return raw;
  const id = authservId.toLowerCase();
  // a field is its first line and the folded lines after it (RFC 5322 section 2.2.3)
  const fields = head.match(/[^\r\n]*\r\n(?:[ \t][^\r\n]*\r\n)*/g) ?? [];
  const kept = fields.filter((f) => {
    const m = /^authentication-results\s*:\s*([^\s;]+)/i.exec(f);
    return !m || m[1]!.toLowerCase() !== id;
  });
  if (kept.length === fields.length) return raw;
  return Buffer.concat([Buffer.from(kept.join(''), 'latin1'), raw.subarray(head.length)]);
}

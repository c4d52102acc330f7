/**
 * Acceptance stage (REFUSE_NON_MAIL_DOMAINS, off by default): a recipient at a domain that is
 * reserved and never receives mail is refused now, with a 422 naming the field, as Resend refuses
 * it, instead of being accepted and bouncing later (or, in direct delivery, sent to whoever
 * answers for the name). Reserved: `example.com`, `example.net`, `example.org` and the top-level
 * names `.test`, `.example`, `.invalid`, `.localhost` (RFC 2606 sections 2 and 3; RFC 6761
 * section 6: `.invalid` never resolves, `.localhost` is this machine, `.test` and `.example` are
 * for tests and documentation), with every name under them. The simulator's domains are not:
 * `resend.dev` is not reserved, and the operator's SIMULATOR_DOMAIN (often under `.test`) is what
 * tests send to on purpose. Pure: no lookup.
 */
import { RESEND_TEST_DOMAIN } from '../../deliver/simulator.js';
import { addressDomain, bareAddress, routingDomain } from '../../kernel/mailbox.js';
import { fieldPrefix, refuse, type AcceptStage } from './stage.js';

/** Second-level names reserved for documentation (RFC 2606 section 3). */
const RESERVED_NAMES = ['example.com', 'example.net', 'example.org'];
/** Top-level names that are never mail destinations (RFC 2606 section 2, RFC 6761 section 6). */
const RESERVED_TLDS = ['test', 'example', 'invalid', 'localhost'];

const under = (domain: string, name: string): boolean => domain === name || domain.endsWith(`.${name}`);

/** The reserved name `domain` falls under, or null when mail may go there. */
export function reservedMailDomain(domain: string): string | null {
  const d = routingDomain(domain).replace(/\.$/, '');
  const name = RESERVED_NAMES.find((n) => under(d, n)) ?? RESERVED_TLDS.find((t) => under(d, t));
  return name ?? null;
}

export interface NonMailDomainsOptions {
  /** SIMULATOR_DOMAIN: simulated, never sent, so never refused. */
  simulatorDomain?: string | undefined;
}

export function refuseNonMailDomains(opts: NonMailDomainsOptions = {}): AcceptStage {
  const simulated = new Set(
    [RESEND_TEST_DOMAIN, opts.simulatorDomain].filter((d): d is string => !!d).map((d) => routingDomain(d)),
  );
  return async (email, ctx) => {
    for (const field of ['to', 'cc', 'bcc'] as const) {
      for (const recipient of email[field]) {
        const domain = addressDomain(bareAddress(recipient));
        if (domain === null || simulated.has(domain.replace(/\.$/, ''))) continue;
        const reserved = reservedMailDomain(domain);
        if (reserved === null) continue;
        const kind = reserved.includes('.') ? reserved : `.${reserved}`;
        return refuse(
          `${fieldPrefix(ctx)}${field}: ${bareAddress(recipient)} is at a domain reserved for tests and documentation (${kind}, RFC 2606), which receives no mail; to test sending, use delivered@${RESEND_TEST_DOMAIN}`,
        );
      }
    }
    return { email };
  };
}

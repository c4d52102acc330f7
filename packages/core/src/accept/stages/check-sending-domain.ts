/**
 * Acceptance stage: the `from` address belongs to a domain the team may send from.
 *
 * - With enforcement on (ENFORCE_VERIFIED_DOMAINS), the from-domain must be a domain of the team
 *   whose sending records are verified; otherwise Resend's 403 `validation_error`, "The
 *   <domain> domain is not verified…". Matching is exact (a subdomain is a domain of its own,
 *   as DKIM and SPF see it), case-insensitive, an IDN as A-labels.
 * - An API key restricted to a domain (`domain_id`) sends from that domain only, enforcement on
 *   or off (the key's restriction is the key's own rule): the `from`, and every address of the
 *   identity headers among the custom headers (`Sender`, `Resent-From`, `Resent-Sender`:
 *   IDENTITY_HEADERS) — a header that cannot be read as addresses is refused too. Over the API
 *   and SMTP submission alike: a submitted message's headers become the email's custom headers
 *   before this stage runs (`Return-Path` is never one: Petrel's own, see OWNED_HEADERS).
 *
 * Runs after template resolution (a template may bring the `from`). Lookups of one team's domain
 * that may send are shared for {@link SENDING_DOMAIN_REUSE_MS}: a batch names one domain many
 * times (a refusal is never reused, so a domain verified a moment ago sends at once).
 */
import { formatIssuePath, type DomainRecordSet, type EmailContent } from '@petrel/contracts';
import { IDENTITY_HEADERS, fromDomain, identityDomains, sendingVerified } from '../../domains/sending.js';
import { fieldPrefix, refuse, type AcceptStage } from './stage.js';
import { systemClock, type Clock } from '../../kernel/clock.js';

/** How long one lookup answers for the same domain: about one request. */
export const SENDING_DOMAIN_REUSE_MS = 1_000;
/** Resend answers an unverified or foreign `from` domain with 403. */
const FORBIDDEN = 403;

export interface SendingDomainCheck {
  domains: { byName(teamId: string, name: string): Promise<DomainRecordSet | null> };
  /** Refuse a `from` domain that is not a verified sending domain of the team. */
  enforce: boolean;
}

export function checkSendingDomain(
  check: SendingDomainCheck,
  clock: Pick<Clock, 'now'> = systemClock,
): AcceptStage {
  const recent = new Map<string, { at: number; found: Promise<DomainRecordSet | null> }>();
  const lookup = (teamId: string, name: string): Promise<DomainRecordSet | null> => {
    const key = `${teamId}\n${name}`;
    const t = clock.now();
    const seen = recent.get(key);
    if (seen && t - seen.at < SENDING_DOMAIN_REUSE_MS) return seen.found;
    if (recent.size > 1_000) recent.clear();
    const found = check.domains.byName(teamId, name);
    // only a domain that may send is reused: one verified a moment ago is not refused from cache
    found.then(
      (d) => (!d || !sendingVerified(d)) && recent.delete(key),
      () => recent.delete(key),
    );
    recent.set(key, { at: t, found });
    return found;
  };
  return async (email, ctx) => {
    if (!check.enforce && ctx.keyDomainId === undefined) return { email };
    const name = fromDomain(email.from);
    // validation has parsed it already; a template's from was checked when the template was saved
    if (name === null) return { email };
    const domain = await lookup(ctx.teamId, name);
    if (ctx.keyDomainId !== undefined && domain?.id !== ctx.keyDomainId) {
      return refuse(`${fieldPrefix(ctx)}from: ${keyRestricted(name)}`, 'validation_error', FORBIDDEN);
    }
    if (ctx.keyDomainId !== undefined) {
      const refused = await foreignIdentityHeader(email.headers, ctx.keyDomainId, (d) =>
        lookup(ctx.teamId, d),
      );
      if (refused) return refuse(`${fieldPrefix(ctx)}${refused}`, 'validation_error', FORBIDDEN);
    }
    if (check.enforce && (!domain || !sendingVerified(domain))) {
      return refuse(
        `The ${name} domain is not verified. Please add and verify your domain (POST /domains, then POST /domains/:id/verify).`,
        'validation_error',
        FORBIDDEN,
      );
    }
    return { email };
  };
}

const keyRestricted = (domain: string): string =>
  `this API key may only send from the domain it is restricted to, not ${domain}`;

/**
 * The first identity header naming a domain other than the key's, as `headers.<Name>: <rule>`;
 * undefined when every one names the key's domain only (or there is none).
 */
async function foreignIdentityHeader(
  headers: EmailContent['headers'],
  keyDomainId: string,
  lookup: (name: string) => Promise<DomainRecordSet | null>,
): Promise<string | undefined> {
  for (const [header, value] of Object.entries(headers)) {
    if (!IDENTITY_HEADERS.has(header.toLowerCase())) continue;
    const field = formatIssuePath(['headers', header]);
    const domains = identityDomains(value);
    if (domains === null) {
      return `${field}: this API key may only send from the domain it is restricted to; the header must be addresses at that domain (local@domain or Name <local@domain>, comma-separated)`;
    }
    for (const name of domains) {
      if ((await lookup(name))?.id !== keyDomainId) return `${field}: ${keyRestricted(name)}`;
    }
  }
  return undefined;
}

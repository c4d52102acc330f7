/**
 * Wire schemas of POST /domains and PATCH /domains/:id (Resend's domains API). Issues are
 * rendered by the one formatter of contracts (`<field>: <rule>`).
 *
 * Unknown keys are dropped, as the other resources' schemas do; the SDK sends `undefined` for
 * options its caller left out, which JSON drops. `dkim_ed25519` is Petrel's own: a second
 * signature with an Ed25519 key (RFC 8463) for this domain, besides the deployment's default.
 */
import { domainToASCII } from 'node:url';
import { CAPABILITY_STATES, DOMAIN_REGIONS, DOMAIN_TLS_MODES } from '@petrel/contracts';
import { z } from 'zod';
import { requiredOr, stringWith } from '../validation/checks.js';
import { MSG } from '../validation/rules.js';

/** A host name as DNS and mail use it: LDH labels, at least two, at most 253 characters. */
const DOMAIN_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;
/** One or more LDH labels (the return-path and tracking subdomains). */
const SUBDOMAIN =
  /^(?=.{1,63}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export const DOMAIN_RULES = {
  name: 'must be a domain name such as example.com',
  subdomain: 'must be a subdomain label such as send (letters, digits, hyphens)',
  region: `must be one of ${DOMAIN_REGIONS.map((r) => `'${r}'`).join(', ')}`,
  tls: `must be one of ${DOMAIN_TLS_MODES.map((r) => `'${r}'`).join(', ')}`,
  capability: `must be one of ${CAPABILITY_STATES.map((r) => `'${r}'`).join(', ')}`,
  oneCapability: 'at least one of sending and receiving must be enabled',
  boolean: 'must be a boolean',
  nameTaken: (name: string) => `The ${name} domain has been registered already.`,
} as const;

/** The domain a client typed, as stored and matched: trimmed, lower case, an IDN as A-labels (RFC 5890). */
export function normalizeDomainName(input: string): string {
  const lower = input.trim().replace(/\.$/, '').toLowerCase();
  return /[^\x00-\x7f]/.test(lower) ? domainToASCII(lower) || lower : lower;
}

const domainName = stringWith(
  (v) => (DOMAIN_NAME.test(normalizeDomainName(v)) ? undefined : DOMAIN_RULES.name),
  requiredOr(MSG.string),
).transform(normalizeDomainName);

const subdomain = stringWith((v) =>
  SUBDOMAIN.test(v.trim().toLowerCase()) ? undefined : DOMAIN_RULES.subdomain,
).transform((v) => v.trim().toLowerCase());

const capability = z.enum(CAPABILITY_STATES, { error: DOMAIN_RULES.capability });
const capabilities = z.object(
  { sending: capability.optional(), receiving: capability.optional() },
  { error: MSG.object },
);
const bool = z.boolean({ error: DOMAIN_RULES.boolean });

export const createDomainSchema = z.object({
  name: domainName,
  region: z.enum(DOMAIN_REGIONS, { error: DOMAIN_RULES.region }).nullish(),
  custom_return_path: subdomain.nullish(),
  capabilities: capabilities.nullish(),
  open_tracking: bool.nullish(),
  click_tracking: bool.nullish(),
  tls: z.enum(DOMAIN_TLS_MODES, { error: DOMAIN_RULES.tls }).nullish(),
  tracking_subdomain: subdomain.nullish(),
  dkim_ed25519: bool.nullish(),
});
export type CreateDomainInput = z.infer<typeof createDomainSchema>;

export const updateDomainSchema = z.object({
  open_tracking: bool.nullish(),
  click_tracking: bool.nullish(),
  tls: z.enum(DOMAIN_TLS_MODES, { error: DOMAIN_RULES.tls }).nullish(),
  capabilities: capabilities.nullish(),
  tracking_subdomain: subdomain.nullable().optional(),
});
export type UpdateDomainInput = z.infer<typeof updateDomainSchema>;

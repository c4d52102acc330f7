/**
 * Use-cases of the domains API: create (POST /domains), update (PATCH /domains/:id), delete
 * (DELETE /domains/:id) and verify (POST /domains/:id/verify, and the scheduler's periodic
 * check), plus the wire views of a domain. The body has passed the wire schema.
 */
import {
  fieldMessage,
  notFound,
  validationError,
  type DkimAlgorithm,
  type DomainCapabilities,
  type DomainRecordSet,
} from '@petrel/contracts';
import { domainRecords, suggestedDmarc, wireRecords, type DomainDnsTargets } from './domain-records.js';
import { DOMAIN_RULES, type CreateDomainInput, type UpdateDomainInput } from './domain-schemas.js';
import { domainStatus } from './domain-status.js';
import type { DomainChange, DomainsPort } from './domains-port.js';
import { checkRecords, type DnsPort } from './verify-domain.js';
import { found, foundId } from '../kernel/found.js';

/** Resend's defaults: send from `send.<domain>`, sending on, receiving off, opportunistic TLS. */
export const DOMAIN_DEFAULTS = {
  region: 'us-east-1',
  customReturnPath: 'send',
  capabilities: { sending: 'enabled', receiving: 'disabled' },
  tls: 'opportunistic',
} as const;

/** The deployment's DKIM settings: selectors, and whether every domain also gets an Ed25519 key. */
export interface DkimSettings {
  selector: string;
  ed25519Selector: string;
  ed25519: boolean;
}

export interface DomainContext {
  domains: DomainsPort;
  targets: DomainDnsTargets;
  clock: { now(): number };
}

/** A domain as GET /domains lists it (no records). */
export function domainListItem(domain: DomainRecordSet) {
  return {
    id: domain.id,
    name: domain.name,
    status: domain.status,
    created_at: domain.created_at,
    region: domain.region,
    capabilities: domain.capabilities,
    open_tracking: domain.open_tracking,
    click_tracking: domain.click_tracking,
  };
}

/** A domain as GET /domains/:id answers (and create, with `records`). */
export function domainView(domain: DomainRecordSet, targets: DomainDnsTargets) {
  return {
    object: 'domain' as const,
    ...domainListItem(domain),
    tls: domain.tls,
    ...(domain.tracking_subdomain !== null && { tracking_subdomain: domain.tracking_subdomain }),
    custom_return_path: domain.custom_return_path,
    records: wireRecords(domainRecords(domain, targets)),
    dmarc: suggestedDmarc(domain),
  };
}

/** The `data` of domain.created / updated / deleted (Resend's webhook payload: no tracking flags). */
export function domainEventData(targets: DomainDnsTargets) {
  return (domain: DomainRecordSet): Record<string, unknown> => {
    const { open_tracking: _open, click_tracking: _click, ...fields } = domainListItem(domain);
    return { ...fields, records: wireRecords(domainRecords(domain, targets)) };
  };
}

function checkCapabilities(caps: DomainCapabilities): DomainCapabilities {
  if (caps.sending !== 'enabled' && caps.receiving !== 'enabled') {
    throw validationError(fieldMessage(['capabilities'], DOMAIN_RULES.oneCapability));
  }
  return caps;
}

export async function createDomain(
  cmd: { teamId: string; input: CreateDomainInput },
  ctx: DomainContext & { dkim: DkimSettings },
): Promise<DomainRecordSet> {
  const { input } = cmd;
  const dkim: { selector: string; algorithm: DkimAlgorithm }[] = [
    { selector: ctx.dkim.selector, algorithm: 'rsa-sha256' },
  ];
  if (input.dkim_ed25519 ?? ctx.dkim.ed25519) {
    dkim.push({ selector: ctx.dkim.ed25519Selector, algorithm: 'ed25519-sha256' });
  }
  const res = await ctx.domains.create(
    cmd.teamId,
    {
      name: input.name,
      region: input.region ?? DOMAIN_DEFAULTS.region,
      custom_return_path: input.custom_return_path ?? DOMAIN_DEFAULTS.customReturnPath,
      capabilities: checkCapabilities({
        ...DOMAIN_DEFAULTS.capabilities,
        ...definedOnly(input.capabilities),
      }),
      open_tracking: input.open_tracking ?? false,
      click_tracking: input.click_tracking ?? false,
      tls: input.tls ?? DOMAIN_DEFAULTS.tls,
      tracking_subdomain: input.tracking_subdomain ?? null,
      dkim,
    },
    domainEventData(ctx.targets),
  );
  // Resend answers 403 validation_error for a domain registered already.
  if (!res.ok) throw validationError(DOMAIN_RULES.nameTaken(input.name), 403);
  return res.domain;
}

export async function getDomain(
  teamId: string,
  domainId: string,
  domains: DomainsPort,
): Promise<DomainRecordSet> {
  return found(domains.get(teamId, domainId), 'Domain');
}

export async function updateDomain(
  cmd: { teamId: string; domainId: string; patch: UpdateDomainInput },
  ctx: DomainContext,
): Promise<{ id: string }> {
  const { patch } = cmd;
  const change: DomainChange = (current) => {
    const next: DomainRecordSet = {
      ...current,
      ...(patch.open_tracking != null && { open_tracking: patch.open_tracking }),
      ...(patch.click_tracking != null && { click_tracking: patch.click_tracking }),
      ...(patch.tls != null && { tls: patch.tls }),
      ...(patch.tracking_subdomain !== undefined && { tracking_subdomain: patch.tracking_subdomain }),
      capabilities: checkCapabilities({ ...current.capabilities, ...definedOnly(patch.capabilities) }),
    };
    const same =
      JSON.stringify({ ...next, updated_at: '' }) === JSON.stringify({ ...current, updated_at: '' });
    if (same) return 'unchanged';
    // A capability switched on adds records never checked: the status follows.
    next.status = domainStatus(domainRecords(next, ctx.targets));
    next.updated_at = nextStamp(current, ctx.clock.now());
    return next;
  };
  return foundId(
    ctx.domains.update(cmd.teamId, cmd.domainId, change, domainEventData(ctx.targets)),
    'Domain',
  );
}

export async function deleteDomain(
  cmd: { teamId: string; domainId: string },
  ctx: Pick<DomainContext, 'domains' | 'targets'>,
): Promise<{ id: string }> {
  return foundId(ctx.domains.remove(cmd.teamId, cmd.domainId, domainEventData(ctx.targets)), 'Domain');
}

/**
 * Looks the domain's records up and stores each one's status and the derived domain status
 * (one domain.updated event when any of them changed). Returns the domain as written.
 */
export async function verifyDomain(
  cmd: { teamId: string; domainId: string },
  ctx: DomainContext & { dns: DnsPort },
): Promise<DomainRecordSet> {
  const current = await getDomain(cmd.teamId, cmd.domainId, ctx.domains);
  const checks = await checkRecords(current, domainRecords(current, ctx.targets), ctx.dns);
  const nowMs = ctx.clock.now();
  const change: DomainChange = (latest) => {
    const next: DomainRecordSet = { ...latest, checks, checked_at: new Date(nowMs).toISOString() };
    next.status = domainStatus(domainRecords(next, ctx.targets));
    // Only a change of what the webhook payload shows moves updated_at (and so publishes an event).
    if (checkChanged(latest, next)) next.updated_at = nextStamp(latest, nowMs);
    return next;
  };
  const written = await ctx.domains.update(cmd.teamId, cmd.domainId, change, domainEventData(ctx.targets));
  if (!written) throw notFound('Domain');
  return written;
}

/** Whether a check changed what a domain.updated event describes (its status or a record's). */
export const checkChanged = (before: DomainRecordSet, after: DomainRecordSet): boolean =>
  before.status !== after.status || JSON.stringify(before.checks) !== JSON.stringify(after.checks);

/** Now, or 1 ms after the record's last write when the clock has not moved past it. */
function nextStamp(current: DomainRecordSet, nowMs: number): string {
  return new Date(Math.max(nowMs, Date.parse(current.updated_at) + 1)).toISOString();
}

function definedOnly<T extends object>(value: T | null | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<T>;
}

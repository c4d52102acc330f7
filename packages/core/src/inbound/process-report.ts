/**
 * What arrives at the bounce domain: delivery status notifications (RFC 3464) and abuse
 * feedback reports (RFC 5965) about emails Petrel sent. Each is matched to its email
 * (match-email.ts) and recorded on that email's timeline, published like every email event:
 *
 * - a DSN with failed recipients → `email.bounced` with Resend's `bounce` data (type, subType,
 *   message, diagnosticCode of every failed recipient); each recipient of the email whose
 *   failure is permanent and says the ADDRESS is bad (bounce-suppression.ts: 5.1.x, 5.2.1,
 *   5.4.4; 550/551/553) joins the team's suppression list with origin `bounce`;
 * - a DSN with only delayed recipients → `email.delivery_delayed` (the message may still arrive);
 * - an ARF report → `email.complained` with the feedback type, and the complaining recipient
 *   joins the suppression list with origin `complaint` (for every feedback type but
 *   `not-spam`, which withdraws a complaint).
 *
 * A report delivered to the return-path subdomain of a team's sending domain (`send.example.com`,
 * routed by inbound-routing.ts) reads its VERP id there, and can only be about an email of the
 * team owning that domain: team B's domain never bounces team A's email (unless the report also
 * went to BOUNCE_DOMAIN, which serves every team).
 *
 * Only recipients of the matched email are ever suppressed: a report naming another address
 * (forged, or about a forwarded copy) suppresses nobody, except that a report about the one
 * recipient of a single-recipient email stands for that recipient (providers redact or rewrite
 * the address, RFC 6590). A report that matches no email is ignored (the caller logs it).
 *
 * When the inbound server authenticated the report (authentication.ts), one whose author domain
 * is not authenticated (`reportTrust`) is dropped before any of this: no event, no suppression.
 */
import { bounceSuppresses } from '../audience/bounce-suppression.js';
import { emailEvent } from '../emails/email-event.js';
import type { EmailToDeliver } from '../emails/record.js';
import type { Bounce } from '../deliver/recipient-outcomes.js';
import { mailboxKey, routingDomain } from '../kernel/mailbox.js';
import { arfOf, type ArfReport } from './arf.js';
import { diagnosticReplyCode, dsnOf, type DsnReport } from './dsn.js';
import { emailIdCandidates, type EmailReference } from './match-email.js';
import type { ReportPorts } from './ports.js';
import { readReport } from './report-message.js';
import { isBounceDomainAddress } from '../deliver/verp.js';
import type { InboundAuthentication, SendLane } from '@petrel/contracts';
import { reportTrust } from './authentication.js';

export type ReportOutcome =
  | { kind: 'bounced'; teamId: string; emailId: string; bounce: Bounce; suppressed: string[] }
  | { kind: 'delayed'; teamId: string; emailId: string }
  | {
      kind: 'complained';
      teamId: string;
      emailId: string;
      /** The complained email's lane: the transactional complaint rate is an alert of its own. */
      lane: SendLane;
      feedbackType: string;
      suppressed: string[];
    }
  /** A report whose author domain is not authenticated (authentication.ts): acted on nowhere. */
  | { kind: 'unauthenticated'; report: 'dsn' | 'arf'; reason: string }
  /** A report, but of no email Petrel holds (expired, foreign, forged). */
  | { kind: 'unmatched'; report: 'dsn' | 'arf'; candidates: string[] }
  /** A DSN of successful deliveries only (NOTIFY=SUCCESS), recorded nowhere. */
  | { kind: 'ignored'; reason: string }
  /** Neither a DSN nor an ARF report. */
  | { kind: 'not_a_report' };

export interface ReturnedMail {
  raw: Buffer | Uint8Array | string;
  /** The envelope recipients it was delivered to (the VERP address of the email, normally). */
  envelopeRecipients: readonly string[];
  /** Return-path domains among the envelope recipients' domains → the team owning each. */
  returnPathTeams?: ReadonlyMap<string, string>;
  /** The inbound server's checks of the report; absent when it checks nothing (INBOUND_AUTH=off). */
  authentication?: InboundAuthentication;
}

/**
 * Which emails a report may be about: its return-path domains (VERP read there too) and, when it
 * reached no address at BOUNCE_DOMAIN, only the teams owning them.
 */
export interface ReportScope {
  returnPathTeams?: ReadonlyMap<string, string>;
  /** Teams whose emails the report may be about; absent = any. */
  teams?: ReadonlySet<string>;
}

/** The scope of a returned mail (see ReportScope). */
export function reportScope(mail: ReturnedMail, bounceDomain: string | undefined): ReportScope {
  const rp = mail.returnPathTeams;
  if (!rp || rp.size === 0) return {};
  const global =
    bounceDomain !== undefined && mail.envelopeRecipients.some((a) => isBounceDomainAddress(a, bounceDomain));
  return global ? { returnPathTeams: rp } : { returnPathTeams: rp, teams: new Set(rp.values()) };
}

/** The addresses of an email: to, cc and bcc. */
const recipientsOf = (email: EmailToDeliver): string[] => [
  ...email.content.to,
  ...email.content.cc,
  ...email.content.bcc,
];

/**
 * The email's recipients that `named` designates: matched as mailboxes; when nothing matches
 * and the email had one recipient, a single named address stands for it.
 */
function matchRecipients(email: EmailToDeliver, named: readonly string[]): string[] {
  const all = recipientsOf(email);
  const wanted = new Set(named.map(mailboxKey));
  const hits = all.filter((a) => wanted.has(mailboxKey(a)));
  if (hits.length > 0) return [...new Set(hits)];
  return all.length === 1 && named.length <= 1 ? all : [];
}

/** The candidates of a report (match-email.ts) and the first email that exists among them. */
async function findEmail(
  ref: Omit<EmailReference, 'bounceDomain' | 'isReturnPathDomain'>,
  ports: ReportPorts,
  scope: ReportScope,
): Promise<{ email: EmailToDeliver | null; candidates: string[] }> {
  const rp = scope.returnPathTeams;
  const candidates = emailIdCandidates({
    ...ref,
    bounceDomain: ports.bounceDomain,
    ...(rp && rp.size > 0 ? { isReturnPathDomain: (d: string) => rp.has(routingDomain(d)) } : {}),
  });
  for (const id of candidates) {
    const email = await ports.emails.find(id);
    if (email && (!scope.teams || scope.teams.has(email.teamId))) return { email, candidates };
  }
  return { email: null, candidates };
}

/** Appends one event about `email` to its timeline (published, status moved forward). */
async function record(
  email: EmailToDeliver,
  type: 'email.bounced' | 'email.delivery_delayed' | 'email.complained',
  status: 'bounced' | 'delivery_delayed' | 'complained',
  extra: Record<string, unknown>,
  ports: ReportPorts,
): Promise<void> {
  const event = emailEvent(type, email.teamId, email, extra, { clock: ports.clock, ids: ports.ids });
  await ports.emails.recordEvents(email.teamId, email.id, [{ status, event }]);
}

async function suppress(
  email: EmailToDeliver,
  addresses: readonly string[],
  origin: 'bounce' | 'complaint',
  ports: ReportPorts,
): Promise<string[]> {
  for (const a of addresses) await ports.suppressions.add(email.teamId, a, origin, email.id);
  return [...addresses];
}

/** The bounce of the whole report: the first permanent failure's, with every diagnostic. */
function reportBounce(failed: readonly Bounce[]): Bounce {
  const lead = failed.find((b) => b.type === 'Permanent') ?? failed[0]!;
  return { ...lead, diagnosticCode: failed.flatMap((b) => b.diagnosticCode) };
}

/** Records a DSN on its email (see the header). */
export async function processBounce(
  dsn: DsnReport,
  envelopeRecipients: readonly string[],
  ports: ReportPorts,
  scope: ReportScope = {},
): Promise<ReportOutcome> {
  const failed = dsn.recipients.filter((r) => r.bounce !== null);
  const delayed = dsn.recipients.filter((r) => r.action === 'delayed');
  if (failed.length === 0 && delayed.length === 0) {
    return { kind: 'ignored', reason: 'the report lists no failed or delayed recipient' };
  }
  const { email, candidates } = await findEmail(
    { envelopeRecipients, originalHeaders: dsn.originalHeaders },
    ports,
    scope,
  );
  if (!email) return { kind: 'unmatched', report: 'dsn', candidates };
  if (failed.length === 0) {
    const r = delayed[0]!;
    const delay = {
      message: r.diagnosticCode ?? `status ${r.status ?? 'unknown'}`,
      code: diagnosticReplyCode(r.diagnosticCode) ?? null,
    };
    await record(email, 'email.delivery_delayed', 'delivery_delayed', { delay }, ports);
    return { kind: 'delayed', teamId: email.teamId, emailId: email.id };
  }
  const bounce = reportBounce(failed.map((r) => r.bounce!));
  await record(email, 'email.bounced', 'bounced', { bounce }, ports);
  const bad = failed.filter(
    (r) =>
      r.bounce!.type === 'Permanent' && bounceSuppresses(diagnosticReplyCode(r.diagnosticCode), r.status),
  );
  const named = bad.map((r) => r.originalRecipient ?? r.finalRecipient ?? '').filter(Boolean);
  const finals = bad.map((r) => r.finalRecipient ?? '').filter(Boolean);
  let targets = bad.length > 0 ? matchRecipients(email, named) : [];
  if (bad.length > 0 && targets.length === 0) targets = matchRecipients(email, finals);
  const suppressed = await suppress(email, targets, 'bounce', ports);
  return { kind: 'bounced', teamId: email.teamId, emailId: email.id, bounce, suppressed };
}

/** Records an ARF report on its email (see the header). */
export async function processComplaint(
  arf: ArfReport,
  envelopeRecipients: readonly string[],
  ports: ReportPorts,
  scope: ReportScope = {},
): Promise<ReportOutcome> {
  const { email, candidates } = await findEmail(
    { envelopeRecipients, originalHeaders: arf.originalHeaders, originalMailFrom: arf.originalMailFrom },
    ports,
    scope,
  );
  if (!email) return { kind: 'unmatched', report: 'arf', candidates };
  const complaint = {
    feedbackType: arf.feedbackType,
    ...(arf.userAgent !== undefined ? { userAgent: arf.userAgent } : {}),
    ...(arf.arrivalDate !== undefined ? { arrivalDate: arf.arrivalDate } : {}),
  };
  await record(email, 'email.complained', 'complained', { complaint }, ports);
  let suppressed: string[] = [];
  if (arf.feedbackType !== 'not-spam') {
    const headerTo = (arf.originalHeaders.get('to') ?? []).flatMap((v) =>
      [...v.matchAll(/[^\s<>,;:"]+@[^\s<>,;:"]+/g)].map((m) => m[0]),
    );
    let targets = matchRecipients(email, arf.originalRcptTo);
    if (targets.length === 0) targets = matchRecipients(email, headerTo);
    suppressed = await suppress(email, targets, 'complaint', ports);
  }
  return {
    kind: 'complained',
    teamId: email.teamId,
    emailId: email.id,
    lane: email.broadcastId === null ? 'send' : 'broadcast',
    feedbackType: arf.feedbackType,
    suppressed,
  };
}

/** A message at the bounce domain: a DSN, an ARF report, or neither. */
export async function processReturnedMail(mail: ReturnedMail, ports: ReportPorts): Promise<ReportOutcome> {
  const report = await readReport(mail.raw);
  const scope = reportScope(mail, ports.bounceDomain);
  const trust = mail.authentication ? reportTrust(mail.authentication) : null;
  const dsn = dsnOf(report);
  if (dsn) {
    if (trust && !trust.trusted) return { kind: 'unauthenticated', report: 'dsn', reason: trust.reason };
    return processBounce(dsn, mail.envelopeRecipients, ports, scope);
  }
  const arf = arfOf(report);
  if (arf) {
    if (trust && !trust.trusted) return { kind: 'unauthenticated', report: 'arf', reason: trust.reason };
    return processComplaint(arf, mail.envelopeRecipients, ports, scope);
  }
  return { kind: 'not_a_report' };
}

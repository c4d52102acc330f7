/**
 * Delivery status notifications (RFC 3464): the `multipart/report; report-type=delivery-status`
 * a mail server sends to an email's return path when it gives up on a recipient (Action:
 * failed) or is still trying (Action: delayed). Postfix, Exim, Sendmail, Gmail and Microsoft
 * Exchange / Outlook all send this form (their human-readable part differs; the
 * `message/delivery-status` part is the same grammar), and the SMTPUTF8 form
 * `message/global-delivery-status` (RFC 6533) is read the same way.
 *
 * Each failed recipient becomes a bounce as Resend's `email.bounced` carries it: type from the
 * status class (RFC 3463: 5.x.x Permanent, 4.x.x Temporary — a server that gave up retrying),
 * subType from the status detail, and the `Diagnostic-Code` values as they came.
 */
import type { Bounce } from '../deliver/recipient-outcomes.js';
import { field, fieldGroups, typedAddress } from './report-fields.js';
import { readReport, type ReportMessage } from './report-message.js';

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

/** One per-recipient group of the report. */
export interface DsnRecipient {
  /** Final-Recipient: the address the reporting server tried (RFC 3464 section 2.3.2). */
  finalRecipient: string | undefined;
  /** Original-Recipient: the address as the original message's envelope gave it, when kept. */
  originalRecipient: string | undefined;
  action: DsnAction | string;
  /** Enhanced status code (RFC 3463), `5.1.1`. */
  status: string | undefined;
  /** `smtp; 550 5.1.1 …` as written (RFC 3464 section 2.3.6), continuation lines joined. */
  diagnosticCode: string | undefined;
  remoteMta: string | undefined;
  /** The bounce this recipient's failure is; null for any other action. */
  bounce: Bounce | null;
}

export interface DsnReport {
  reportingMta: string | undefined;
  recipients: DsnRecipient[];
  /** Header fields of the returned message (Message-ID, Return-Path…), names lower-cased. */
  originalHeaders: Map<string, string[]>;
}

const DSN_TYPES = ['message/delivery-status', 'message/global-delivery-status'];

/** The basic SMTP code of a diagnostic (`smtp; 550 …` → 550), when it has one. */
export function diagnosticReplyCode(diagnostic: string | undefined): number | undefined {
  const m = /^(?:[a-z-]+;\s*)?([245]\d\d)\b/i.exec(diagnostic?.trim() ?? '');
  return m ? Number(m[1]) : undefined;
}

/** RFC 3463 status of a diagnostic when the Status field is missing (`550 5.1.1 …`). */
function diagnosticStatus(diagnostic: string | undefined): string | undefined {
  return /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(diagnostic ?? '')?.[1];
}

/**
 * Resend's (and Amazon SES's) bounce subTypes by RFC 3463 status: an address that does not
 * exist, a full mailbox, a message too large, a policy or content refusal; `General` otherwise.
 */
export function bounceSubType(status: string | undefined): string {
  if (!status) return 'General';
  const [, subject, detail] = status.split('.');
  if (subject === '1' && ['0', '1', '2', '3', '6', '10'].includes(detail ?? '')) return 'NoEmail';
  if (subject === '2' && detail === '2') return 'MailboxFull';
  if ((subject === '3' && detail === '4') || (subject === '2' && detail === '3')) return 'MessageTooLarge';
  if (subject === '7') return 'MessageRejected';
  return 'General';
}

/**
 * The recipient's RFC 3463 status: the Status field, unless it is the undetailed `X.0.0` (Exim
 * writes 5.0.0 for every failure) and the server's reply carries a detailed one.
 */
function recipientStatus(status: string | undefined, diagnostic: string | undefined): string | undefined {
  const given = /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(status ?? '')?.[1];
  const replied = diagnosticStatus(diagnostic);
  if (given === undefined || (given.endsWith('.0.0') && replied !== undefined)) return replied ?? given;
  return given;
}

function recipientBounce(r: Omit<DsnRecipient, 'bounce'>): Bounce | null {
  if (r.action !== 'failed') return null;
  const code = diagnosticReplyCode(r.diagnosticCode);
  const status = r.status ?? diagnosticStatus(r.diagnosticCode);
  const klass = status?.[0] ?? (code !== undefined ? String(code)[0] : '5');
  const message =
    r.diagnosticCode?.replace(/^[a-z-]+;\s*/i, '') ??
    `Delivery to ${r.finalRecipient ?? 'the recipient'} failed${status ? ` (status ${status})` : ''}`;
  return {
    type: klass === '4' ? 'Temporary' : 'Permanent',
    subType: bounceSubType(status),
    message,
    diagnosticCode: r.diagnosticCode !== undefined ? [r.diagnosticCode] : [],
  };
}

/** The DSN in an already read report, or null when it is not one. */
export function dsnOf(report: ReportMessage): DsnReport | null {
  if (report.reportType !== 'delivery-status') return null;
  const text = report.partText(DSN_TYPES);
  if (text === undefined) return null;
  const [perMessage, ...groups] = fieldGroups(text);
  const recipients = groups
    .filter((g) => g.has('action') || g.has('final-recipient'))
    .map((g): DsnRecipient => {
      const r = {
        finalRecipient: typedAddress(field(g, 'final-recipient')),
        originalRecipient: typedAddress(field(g, 'original-recipient')),
        action: (field(g, 'action') ?? '').toLowerCase().split(/[\s(]/)[0] ?? '',
        status: recipientStatus(field(g, 'status'), field(g, 'diagnostic-code')),
        diagnosticCode: field(g, 'diagnostic-code'),
        remoteMta: typedAddress(field(g, 'remote-mta')),
      };
      return { ...r, bounce: recipientBounce(r) };
    });
  if (recipients.length === 0) return null;
  return {
    reportingMta: typedAddress(field(perMessage, 'reporting-mta')),
    recipients,
    originalHeaders: report.originalHeaders,
  };
}

/** Parse a whole message as an RFC 3464 DSN; null when it is not one. */
export async function parseDsn(raw: Buffer | Uint8Array | string): Promise<DsnReport | null> {
  return dsnOf(await readReport(raw));
}

/**
 * Abuse feedback reports (ARF, RFC 5965): what a mailbox provider's feedback loop sends when a
 * recipient presses "report spam" — a `multipart/report; report-type=feedback-report` with a
 * `message/feedback-report` part (Feedback-Type, User-Agent, Version, Original-Mail-From,
 * Original-Rcpt-To, Arrival-Date…) and the reported message or its headers. Yahoo, AOL/Verizon
 * Media, Comcast and Microsoft's JMRP send this form; providers often redact the recipient
 * (RFC 6590), so the recipient is also looked for in the returned headers.
 *
 * Microsoft's older JMRP reports were no `multipart/report`: the reported message attached as
 * `message/rfc822` to a message from the feedback loop, with the complaining mailbox in
 * `X-HmXmrOriginalRecipient`. Those are read as an `abuse` report too.
 */
import { field, fieldGroups, typedAddress } from './report-fields.js';
import { readReport, type ReportMessage } from './report-message.js';

export interface ArfReport {
  /** abuse, fraud, virus, other, not-spam (RFC 5965 section 7.3 registry), lower-cased. */
  feedbackType: string;
  userAgent: string | undefined;
  arrivalDate: string | undefined;
  sourceIp: string | undefined;
  originalMailFrom: string | undefined;
  /** Original-Rcpt-To values and, for JMRP, X-HmXmrOriginalRecipient: possibly redacted. */
  originalRcptTo: string[];
  /** Header fields of the reported message, names lower-cased. */
  originalHeaders: Map<string, string[]>;
}

const FEEDBACK_TYPES = ['message/feedback-report'];

/** The ARF report in an already read report, or null when it is not one. */
export function arfOf(report: ReportMessage): ArfReport | null {
  const topHeader = (name: string) => report.email.headers.find((h) => h.key === name)?.value;
  const jmrpRecipient = topHeader('x-hmxmroriginalrecipient');
  if (report.reportType === 'feedback-report') {
    const text = report.partText(FEEDBACK_TYPES);
    if (text === undefined) return null;
    const g = fieldGroups(text)[0];
    if (!g) return null;
    const rcpts = (g.get('original-rcpt-to') ?? []).map((v) => typedAddress(v) ?? v);
    return {
      feedbackType: (field(g, 'feedback-type') ?? 'abuse').toLowerCase(),
      userAgent: field(g, 'user-agent'),
      arrivalDate: field(g, 'arrival-date') ?? field(g, 'received-date'),
      sourceIp: field(g, 'source-ip'),
      originalMailFrom: typedAddress(field(g, 'original-mail-from')),
      originalRcptTo: jmrpRecipient ? [...rcpts, jmrpRecipient.trim()] : rcpts,
      originalHeaders: report.originalHeaders,
    };
  }
  if (jmrpRecipient !== undefined && report.originalHeaders.size > 0) {
    return {
      feedbackType: 'abuse',
      userAgent: 'JMRP',
      arrivalDate: undefined,
      sourceIp: undefined,
      originalMailFrom: undefined,
      originalRcptTo: [jmrpRecipient.trim()],
      originalHeaders: report.originalHeaders,
    };
  }
  return null;
}

/** Parse a whole message as an ARF report; null when it is not one. */
export async function parseArf(raw: Buffer | Uint8Array | string): Promise<ArfReport | null> {
  return arfOf(await readReport(raw));
}

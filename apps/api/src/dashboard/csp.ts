/**
 * The dashboard's Content-Security-Policy (CSP Level 3) and the endpoint its violation reports
 * go to. The policy allows only the app's own files: no inline script or style, no eval, no
 * remote load; email html is shown in an `<iframe sandbox srcdoc>`, which inherits this policy
 * (a srcdoc document takes its parent's policy container), so a message's scripts, inline
 * handlers and remote images are blocked twice — by the sandbox and by the policy.
 * Reports (the `report-uri` JSON form, `application/csp-report`, and the Reporting API's
 * `application/reports+json` list) are kept in memory, the last {@link CSP_REPORTS_KEPT} per
 * process, for the tests and for a look while debugging.
 */
import type { Request, RequestHandler, Response } from 'express';
import { PetrelError } from '@petrel/contracts';

export const CSP_REPORT_PATH = '/dashboard/csp-report';
const CSP_REPORTS_KEPT = 100;
const CSP_REPORT_MAX_BYTES = 64 * 1024;

const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  `report-uri ${CSP_REPORT_PATH}`,
].join('; ');

/**
 * The headers of every /dashboard response besides those the app sets on every response (no
 * sniffing, framing or referrer: middleware/security-headers.ts): the dashboard's policy in place
 * of the API's `default-src 'none'`, and its own browsing context group.
 */
export function setDashboardSecurityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

export interface CspReport {
  received_at: string;
  report: unknown;
}

/** The last reports this process received, oldest first. */
export class CspReports {
  private readonly kept: CspReport[] = [];
  constructor(private readonly max = CSP_REPORTS_KEPT) {}

  add(report: unknown, at = new Date()): void {
    this.kept.push({ received_at: at.toISOString(), report });
    if (this.kept.length > this.max) this.kept.splice(0, this.kept.length - this.max);
  }

  list(): CspReport[] {
    return [...this.kept];
  }
}

async function readSmallBody(req: Request): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > CSP_REPORT_MAX_BYTES) throw new PetrelError('payload_too_large', 'CSP report too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POST: a browser's report (no credentials: browsers send reports without the app's script). */
export function receiveCspReport(reports: CspReports): RequestHandler {
  return async (req, res) => {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/(csp-report|reports\+json|json)\b/i.test(type)) {
      throw new PetrelError(
        'unsupported_media_type',
        'A CSP report is application/csp-report or application/reports+json',
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(await readSmallBody(req));
    } catch (err) {
      if (err instanceof PetrelError) throw err;
      throw new PetrelError('validation_error', 'body: not JSON');
    }
    // the Reporting API sends a list of reports, report-uri one object
    for (const r of Array.isArray(body) ? body : [body]) reports.add(r);
    res.status(202).json({ object: 'csp_report', received: true });
  };
}

/** GET: the kept reports, newest last. */
export function listCspReports(reports: CspReports): RequestHandler {
  return (_req, res) => {
    res.json({ object: 'list', has_more: false, data: reports.list() });
  };
}

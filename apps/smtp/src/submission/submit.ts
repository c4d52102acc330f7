/**
 * One submitted message through the accept-emails use-case of POST /emails, for the
 * authenticated key's team, answered with the email's id; and the submission metrics.
 */
import type { SMTPServerSession } from 'smtp-server';
import { acceptEmails, acceptedReply, refusalReply, type AcceptPorts, type SmtpReply } from '@petrel/core';
import type { AuthenticatedKey } from '@petrel/store';
import { allOf, log, metrics, zeroSeries } from '@petrel/observability';
import { parseSubmission } from './parse.js';

/** The `endpoint` label of the emails accepted over SMTP (the API's are `single` and `batch`). */
const ACCEPTED_ENDPOINT = 'smtp';

export type Outcome = 'accepted' | 'replayed' | 'refused' | 'deferred' | 'too_large' | 'auth_failed';

/** Counts a submission's outcome; every series exists from start-up, before the first one. */
export function submissionCounter(): (outcome: Outcome) => void {
  zeroSeries(metrics.smtpSubmissions(), {
    outcome: allOf<Outcome>({
      accepted: true,
      replayed: true,
      refused: true,
      deferred: true,
      too_large: true,
      auth_failed: true,
    }),
  });
  zeroSeries(metrics.emailsAccepted(), { endpoint: [ACCEPTED_ENDPOINT] });
  for (const kind of ['rate', 'daily_quota']) metrics.rateLimited().inc({ kind }, 0);
  zeroSeries(metrics.smtpSubmissionReply(), {
    reply: allOf<ReplyClass>({ '2xx': true, '4xx': true, '5xx': true }),
  });
  return (outcome) => metrics.smtpSubmissions().inc({ outcome });
}

type ReplyClass = '2xx' | '4xx' | '5xx';

/**
 * Records how long the client waited for the reply to its final dot: `dotMs` is when the message
 * ended (`performance.now()`). A client that waits for this reply before its next message, as
 * nodemailer does, waits this long per message on top of its own round trips.
 */
export function observeReply(code: number, dotMs: number): void {
  const reply = `${Math.floor(code / 100)}xx` as ReplyClass;
  metrics.smtpSubmissionReply().observe({ reply }, (performance.now() - dotMs) / 1000);
}

/** Accept one message for the authenticated key's team; the reply the client gets. */
export async function submit(
  accept: AcceptPorts,
  raw: Buffer,
  session: SMTPServerSession,
  count: (outcome: Outcome) => void,
): Promise<SmtpReply> {
  const key = session.user as unknown as AuthenticatedKey;
  try {
    const { body, idempotencyKey } = await parseSubmission(
      raw,
      session.envelope.rcptTo.map((r) => r.address),
    );
    const res = await acceptEmails(
      {
        teamId: key.teamId,
        endpoint: 'single',
        body,
        mode: 'strict',
        idempotencyKey,
        clock: Date,
        // a key restricted to one domain sends from it alone, over SMTP as over HTTP
        ...(key.domainId !== undefined && { scope: { domainId: key.domainId } }),
      },
      accept,
    );
    const { id } = JSON.parse(res.body) as { id: string };
    count(res.replayed ? 'replayed' : 'accepted');
    if (res.accepted > 0) metrics.emailsAccepted().inc({ endpoint: ACCEPTED_ENDPOINT }, res.accepted);
    return acceptedReply(id, res.replayed);
  } catch (err) {
    const reply = refusalReply(err);
    count(reply.code >= 500 ? 'refused' : 'deferred');
    if (reply.code < 500) log().warn({ err, teamId: key.teamId }, 'SMTP submission deferred (4xx)');
    return reply;
  }
}

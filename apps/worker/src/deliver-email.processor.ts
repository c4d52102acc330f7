/**
 * The send processor: one job = one email. Loads the record, renders it (template hook), builds
 * MIME with the lean builder, sends through the pooled SMTP transport, and records the outcome:
 *   2xx            → email.sent + email.delivered
 *   soft failure   → email.delivery_delayed (once), then a retry on the backoff ladder
 *   retries spent  → email.bounced (Temporary) and the job completes
 *   hard failure   → email.bounced (Permanent), never retried (UnrecoverableError)
 * A job whose email is canceled, already delivered or terminal does nothing (a re-run after a
 * crash must not send twice).
 */
import { performance } from 'node:perf_hooks';
import { sendJobSchema, type EmailContent, type EmailStatus, type SendJob } from '@petrel/contracts';
import { newEmailId } from '@petrel/core';
import { isRedisUnavailable, type EmailRecord, type EmailsStore } from '@petrel/store';
import { UnrecoverableError, type Job } from '@petrel/queue';
import {
  buildMessage,
  MessageBuildError,
  type BuiltMessage,
  type OutgoingMessage,
  type SendResult,
} from '@petrel/mailer';
import { log, metrics, withLogContext } from '@petrel/observability';
import { emailEventData } from './email-events.js';

/** Statuses from which a send may (still) happen. */
const SENDABLE: ReadonlySet<EmailStatus> = new Set(['scheduled', 'queued', 'delivery_delayed']);

/** Thrown on a temporary failure; the backoff strategy reads `retryAfterMs`. */
export class SoftFailError extends Error {
  override name = 'SoftFailError';
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

/** Turns a record into the content to send (templates plug in here). */
export type ContentResolver = (record: EmailRecord) => Promise<EmailContent | { error: string }>;

export interface DeliverDeps {
  emails: EmailsStore;
  send: (msg: OutgoingMessage) => Promise<SendResult>;
  resolveContent?: ContentResolver;
  lane: 'send' | 'broadcast';
  /** Length of the retry ladder: after this many temporary failures the email bounces. */
  retries: number;
  /**
   * How long to keep trying to record an SMTP outcome while Redis is unavailable (default 60 s).
   * After a 250 this is what stands between a Redis outage and a duplicate send: a job whose
   * outcome was never written is sent again when it is retried.
   */
  outcomeRetryMs?: number;
}

const DEFAULT_OUTCOME_RETRY_MS = 60_000;

export type DeliverOutcome = 'delivered' | 'skipped' | 'missing' | 'bounced' | 'failed';

export function deliverEmailProcessor(deps: DeliverDeps) {
  return (job: Job<SendJob>): Promise<DeliverOutcome> => {
    const data = sendJobSchema.parse(job.data);
    return withLogContext({ jobId: job.id, teamId: data.teamId, emailId: data.emailId }, () =>
      deliver(deps, job, data),
    );
  };
}

async function deliver(deps: DeliverDeps, job: Job<SendJob>, data: SendJob): Promise<DeliverOutcome> {
  const loaded = await deps.emails.getForSend(data.teamId, data.emailId);
  if (!loaded) {
    log().warn('email record not found (expired or deleted); nothing to send');
    return 'missing';
  }
  const { record, attachments } = loaded;
  if (!SENDABLE.has(record.status)) {
    log().info({ status: record.status }, 'email is no longer sendable; skipping');
    return 'skipped';
  }

  const event = (type: Parameters<typeof emailEvent>[0], extra?: Record<string, unknown>) =>
    emailEvent(type, data.teamId, record, extra);

  let content: EmailContent = { ...record.content, attachments };
  if (deps.resolveContent) {
    const resolved = await deps.resolveContent(record);
    if ('error' in resolved) {
      await deps.emails.recordEvent(
        data.teamId,
        record.id,
        'failed',
        event('email.failed', { failed: { reason: resolved.error } }),
      );
      return 'failed';
    }
    content = { ...resolved, attachments };
  }

  let msg: BuiltMessage;
  try {
    msg = buildMessage({
      emailId: record.id,
      messageIdDomain: messageIdDomain(record.messageId),
      date: new Date(),
      from: content.from,
      to: content.to,
      cc: content.cc,
      bcc: content.bcc,
      reply_to: content.reply_to,
      subject: content.subject,
      ...(content.html !== undefined ? { html: content.html } : {}),
      ...(content.text !== undefined ? { text: content.text } : {}),
      headers: content.headers,
      attachments: content.attachments,
    });
  } catch (err) {
    // A message that cannot be built never will be: fail it now instead of retrying.
    if (!(err instanceof MessageBuildError)) throw err;
    await deps.emails.recordEvent(
      data.teamId,
      record.id,
      'failed',
      event('email.failed', { failed: { reason: err.message } }),
    );
    throw new UnrecoverableError(`message cannot be built: ${err.message}`);
  }

  const started = performance.now();
  const result = await deps.send(msg);
  const seconds = (performance.now() - started) / 1000;
  metrics.smtpLatency().observe({ kind: result.kind }, seconds);
  metrics.sendOutcomes().inc({ kind: result.kind, lane: deps.lane });

  // From here on the SMTP server has answered: what it said must reach the record.
  const attempts = String(record.attempts + 1);
  if (result.kind === 'sent') {
    await persist(deps, () =>
      deps.emails.recordEvents(
        data.teamId,
        record.id,
        [
          { status: 'sent', event: event('email.sent') },
          { status: 'delivered', event: event('email.delivered', { smtp_response: result.response }) },
        ],
        { attempts },
      ),
    );
    metrics.acceptToDelivered().observe((Date.now() - record.createdMs) / 1000);
    return 'delivered';
  }

  if (result.kind === 'hard_fail') {
    const bounce = {
      type: 'Permanent',
      subType: 'General',
      message: result.detail,
      diagnosticCode: [`smtp; ${result.code} ${result.detail}`],
    };
    await persist(deps, () =>
      deps.emails.recordEvent(data.teamId, record.id, 'bounced', event('email.bounced', { bounce }), {
        attempts,
      }),
    );
    throw new UnrecoverableError(`permanent SMTP failure ${result.code}: ${result.detail}`);
  }

  // Temporary failure. attemptsMade = failures before this attempt.
  const exhausted = job.attemptsMade >= deps.retries;
  if (exhausted) {
    const bounce = {
      type: 'Temporary',
      subType: 'RetriesExhausted',
      message: `Delivery retries exhausted: ${result.detail}`,
      diagnosticCode: result.code ? [`smtp; ${result.code} ${result.detail}`] : [],
    };
    await persist(deps, () =>
      deps.emails.recordEvent(data.teamId, record.id, 'bounced', event('email.bounced', { bounce }), {
        attempts,
      }),
    );
    log().warn({ detail: result.detail }, 'retries exhausted; email bounced (transient)');
    return 'bounced';
  }
  if (record.status !== 'delivery_delayed') {
    const delay = { message: result.detail, code: result.code ?? null };
    await persist(deps, () =>
      deps.emails.recordEvent(
        data.teamId,
        record.id,
        'delivery_delayed',
        event('email.delivery_delayed', { delay }),
        { attempts },
      ),
    );
  } else {
    await persist(deps, () => deps.emails.setFields(data.teamId, record.id, { attempts }));
  }
  throw new SoftFailError(`temporary failure: ${result.detail}`, result.retryAfterMs);
}

/**
 * Runs `write` (the record of an SMTP outcome), retrying with backoff while Redis is unavailable,
 * for up to `outcomeRetryMs`. Any other error, or an outage that outlasts the window, is thrown:
 * the job then fails this attempt and is retried — after a 250, that is a duplicate send.
 */
async function persist<T>(deps: DeliverDeps, write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + (deps.outcomeRetryMs ?? DEFAULT_OUTCOME_RETRY_MS);
  let pause = 100;
  for (let tries = 1; ; tries++) {
    try {
      return await write();
    } catch (err) {
      if (!isRedisUnavailable(err) || Date.now() + pause > deadline) throw err;
      if (tries === 1)
        log().warn(
          { err: (err as Error).message },
          'Redis unavailable while recording a send outcome; retrying',
        );
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 2_000);
    }
  }
}

/** The domain part of the Message-ID fixed at acceptance (`<id@domain>`). */
function messageIdDomain(messageId: string): string {
  return /@([^>]+)>?$/.exec(messageId)?.[1] ?? 'petrel.local';
}

function emailEvent(
  type: 'email.sent' | 'email.delivered' | 'email.delivery_delayed' | 'email.bounced' | 'email.failed',
  teamId: string,
  record: EmailRecord,
  extra?: Record<string, unknown>,
) {
  return {
    id: newEmailId(),
    type,
    created_at: new Date().toISOString(),
    teamId,
    data: emailEventData(record, extra),
  };
}

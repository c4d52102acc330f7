/**
 * The submission server (RFC 6409): SMTP_SUBMISSION_PORT with STARTTLS, and optionally
 * SMTP_SUBMISSION_TLS_PORT with implicit TLS (RFC 8314). A client authenticates with an API key
 * as the password (AUTH PLAIN or LOGIN, any username — Resend's convention is `resend`), only
 * over TLS; each message it submits becomes one email through the same use-case as POST /emails
 * and is answered with the email's id.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import {
  BARE_LINE_ENDING_MESSAGE,
  DEFAULT_MAX_RECIPIENTS_PER_EMAIL,
  checkRateLimit,
  rateLimitMessage,
  tooLargeReply,
} from '@petrel/core';
import type { AuthenticatedKey } from '@petrel/store';
import { log, metrics } from '@petrel/observability';
import { listen, type SmtpContext, type SmtpListener } from '../context.js';
import { readData, smtpError } from '../smtp-data.js';
import { AuthThrottle } from './auth-throttle.js';
import { observeReply, submissionCounter, submit } from './submit.js';

export async function startSubmission(ctx: SmtpContext): Promise<SmtpListener[]> {
  const { apiKeys, limits } = ctx.rt.stores;
  const accept = await ctx.rt.acceptance();
  const throttle = new AuthThrottle({ maxFailures: ctx.config.SMTP_AUTH_MAX_FAILURES });
  const maxBytes = ctx.config.SMTP_SUBMISSION_MAX_BYTES;
  // RCPT TO commands one message may carry: the recipients cap of every email (to + cc + bcc),
  // so a submission can never name more recipients than POST /emails may
  const maxRecipients = ctx.config.MAX_RECIPIENTS_PER_EMAIL ?? DEFAULT_MAX_RECIPIENTS_PER_EMAIL;
  const count = submissionCounter();

  const options: SMTPServerOptions = {
    name: ctx.hostname,
    banner: 'Petrel ESMTP submission',
    key: ctx.tls.key,
    cert: ctx.tls.cert,
    // RFC 1870: advertised in EHLO, a larger MAIL FROM SIZE= or DATA is refused with 552
    size: maxBytes,
    authMethods: ['PLAIN', 'LOGIN'],
    // AUTH before STARTTLS is answered 538 by the server (allowInsecureAuth stays off)
    disabledCommands: [],
    logger: false,
    hideENHANCEDSTATUSCODES: false,
    // shutdown lets a message in flight finish, then cuts the remaining sessions
    closeTimeout: 10_000,
    async onAuth(auth, session, callback) {
      const ip = session.remoteAddress;
      try {
        const wait = throttle.delayMs(ip);
        if (wait > 0) await sleep(wait);
        const key = auth.password ? await apiKeys.authenticate(auth.password) : null;
        if (key) {
          throttle.succeed(ip);
          return callback(null, { user: key });
        }
        count('auth_failed');
        const close = throttle.fail(ip);
        log().warn({ ip, username: auth.username, closing: close }, 'SMTP AUTH failed');
        return callback(
          close
            ? smtpError(421, 'Too many failed authentication attempts, closing connection')
            : smtpError(535, 'Authentication failed: the password must be an API key'),
        );
      } catch (err) {
        log().error({ err }, 'SMTP AUTH could not be checked');
        return callback(smtpError(454, 'Temporary authentication failure, try again later'));
      }
    },
    // One message = one request against the team's rate, the API's rule: checked at MAIL FROM,
    // so a client over it is deferred (451) before it uploads the message.
    onMailFrom(_address, session, callback) {
      const key = session.user as unknown as AuthenticatedKey | undefined;
      if (!key) return callback(); // the server answers 530 itself: AUTH comes first
      checkRateLimit(limits, key.teamId, ctx.config.RATE_LIMIT_RPS).then(
        (limit) => {
          if (limit.kind !== 'limited') return callback();
          metrics.rateLimited().inc({ kind: 'rate' });
          count('deferred');
          callback(smtpError(451, rateLimitMessage(limit.limit, limit.retryAfterS ?? 1)));
        },
        (err: unknown) => {
          log().error({ err }, 'SMTP rate limit could not be checked');
          callback(smtpError(451, 'Temporary failure, try again later'));
        },
      );
    },
    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= maxRecipients) {
        return callback(smtpError(452, `Too many recipients (at most ${maxRecipients} per message)`));
      }
      callback();
    },
    onData(stream, session, callback) {
      let dotMs: number | undefined;
      readData(stream, maxBytes)
        .then(async (data) => {
          dotMs = performance.now();
          if (data === 'too_large') {
            count('too_large');
            return tooLargeReply(maxBytes);
          }
          if (data.bare) {
            count('refused');
            log().warn(
              { ip: session.remoteAddress, bare: data.bare },
              'SMTP message with a bare CR or LF refused',
            );
            return { code: 554, message: BARE_LINE_ENDING_MESSAGE };
          }
          return submit(accept, data.raw, session, count);
        })
        .then(
          (reply) => {
            if (dotMs !== undefined) observeReply(reply.code, dotMs);
            if (reply.code === 250) callback(null, reply.message);
            else callback(smtpError(reply.code, reply.message));
          },
          (err: unknown) => {
            log().error({ err }, 'SMTP submission failed');
            if (dotMs !== undefined) observeReply(451, dotMs);
            callback(smtpError(451, 'Temporary failure, try again later'));
          },
        );
    },
  };

  const listeners: SmtpListener[] = [];
  try {
    listeners.push(await listen('submission', new SMTPServer(options), ctx.config.SMTP_SUBMISSION_PORT, ctx));
    if (ctx.config.SMTP_SUBMISSION_TLS_PORT !== 'off') {
      const tls = new SMTPServer({ ...options, secure: true });
      listeners.push(await listen('submission-tls', tls, ctx.config.SMTP_SUBMISSION_TLS_PORT, ctx));
    }
  } catch (err) {
    await Promise.all(listeners.map((l) => l.close()));
    throw err;
  }
  return listeners;
}

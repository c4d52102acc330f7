/**
 * The pooled SMTP sender: nodemailer's SMTP pool handed prebuilt MIME bytes and an explicit
 * envelope (it composes nothing). It owns the connections to one relay (or MX); it never throws
 * for an SMTP outcome — every attempt ends as a {@link SendResult} — and never retries across
 * attempts: that is the send queue's job, on the retry policy's schedule.
 *
 * The pool is used without nodemailer's Mailer in front of it: `Mailer.sendMail({ raw })` still
 * wraps the bytes in a MailComposer/MimeNode (random Message-ID and boundary, a `stream.pipeline`
 * per message), which cost a third of the worker's CPU in the delivery profile (bench/README.md).
 * {@link RawMail} is the small part of nodemailer's MailMessage the pool reads (envelope, id,
 * a fresh byte stream per attempt, so a requeued message can be sent again).
 *
 * SMTPUTF8 (RFC 6531) is settled per session, when the pool hands the message to a connection:
 * see {@link planAttempt}. nodemailer declares SMTPUTF8 in MAIL FROM when the server offers it
 * and the envelope is not ASCII, but without the offer it sends the UTF-8 address regardless.
 */
import { PassThrough } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import SMTPPool from 'nodemailer/lib/smtp-pool';
import { needsSmtpUtf8 } from './address.js';
import {
  classifySendError,
  classifySendInfo,
  smtpUtf8Failure,
  smtpUtf8Refusal,
  withRejected,
  type RejectedRecipient,
  type SendResult,
} from './classify.js';
import type { SendOrigin } from '@petrel/core';
import type { MessageEnvelope } from './build-message.js';

export interface SmtpSenderOptions {
  /** `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://...` (implicit TLS). */
  url: string;
  /** Connections kept open to the server (nodemailer `maxConnections`). */
  poolSize: number;
  /** Time to establish the TCP (and implicit TLS) connection. */
  connectionTimeoutMs: number;
  /** Inactivity allowed on an open connection, e.g. a server stalling after DATA. */
  socketTimeoutMs: number;
  /** Time to wait for the 220 greeting; defaults to `connectionTimeoutMs`. */
  greetingTimeoutMs?: number;
  /** TLS options (servername, ca, rejectUnauthorized, minVersion…). */
  tls?: ConnectionOptions;
  /**
   * Upper bound for one `send`, queueing for a free connection included. A server trickling its
   * replies byte by byte never trips the socket timeout; this does. Default: no bound.
   */
  sendTimeoutMs?: number;
  /**
   * How often nodemailer silently resends on a fresh connection when a pooled connection closes
   * mid-send (typically a stale connection the server dropped). Default 1.
   */
  maxRequeues?: number;
  /** Called after every send with its outcome and wall time, for metrics. Must not throw. */
  onResult?: (result: SendResult, ms: number) => void;
  /** The name said in EHLO/HELO (RFC 5321 section 4.1.1.1); default the machine's hostname. */
  name?: string;
  /**
   * STARTTLS policy. Default: upgrade when the server offers it, fail the session when the
   * upgrade fails. `require`: fail the session unless it is upgraded. `opportunistic`: go on in
   * plaintext when the server refuses the STARTTLS command (a failed handshake still fails).
   */
  starttls?: 'require' | 'opportunistic';
  /** Local address the connections are opened from (a sending IP pool's, direct delivery). */
  localAddress?: string;
  /**
   * Extra connections the sender may open while answers are slow (default 0: never more than
   * `poolSize`). A receiver that pauses before its 250 holds a pooled connection for that long;
   * with every connection taken, the fast messages queue behind the slow ones and one slow
   * answer in a hundred sets the pace of the other 99 (bench/README.md, realistic sink phase).
   * With an overflow, the sender keeps about `poolSize` connections free of slow answers: while
   * k sends have been on their session for `slowAnswerMs` or more, up to min(k, overflow) sends
   * go over a second pool. For a relay only: a direct MX host's connection ceiling is per host.
   */
  overflowConnections?: number;
  /** How long a send may be on its session before it counts as slow (default 1,000 ms). */
  slowAnswerMs?: number;
}

/** A message ready for the wire, as {@link buildMessage} returns it. */
export interface OutgoingMessage {
  raw: Buffer;
  envelope: MessageEnvelope;
  /** The Message-ID header value (with angle brackets), for the pool's log lines. */
  messageId?: string;
  /**
   * The message for a hop without SMTPUTF8, when `raw` has UTF-8 header fields (as
   * `buildMessage` returns it). Without it `raw` is sent over every hop.
   */
  asciiRaw?: Buffer;
  /**
   * The from-domain's TLS policy, read in direct delivery only (a relay's TLS is SMTP_URL's):
   * `enforced` defers the email rather than send it to an MX in plaintext. Default opportunistic.
   */
  tls?: 'opportunistic' | 'enforced';
}

export interface SmtpSender {
  /** Sends one message; resolves with its outcome, never rejects for an SMTP outcome. */
  /**
   * `origin` (the email's team and From) is read in direct delivery only: the sending IP pool is
   * chosen by them (packages/core sending-pools.ts).
   */
  send(msg: OutgoingMessage, origin?: SendOrigin): Promise<SendResult>;
  /** Connects, greets (and authenticates) once: true when the server is usable. */
  verify(): Promise<boolean>;
  /** Stops taking messages, lets in-flight sends finish, then closes every connection. */
  close(): Promise<void>;
}

const DEFAULT_MAX_REQUEUES = 1;

/** Creates a pooled sender for one SMTP server. */
export function createSmtpSender(opts: SmtpSenderOptions): SmtpSender {
  if (!/^smtps?:\/\//i.test(opts.url)) throw new RangeError('SMTP url must start with smtp:// or smtps://');
  if (!(opts.poolSize >= 1)) throw new RangeError('poolSize must be at least 1');
  const newPool = (maxConnections: number): SMTPPool => {
    const pool = new SMTPPool({
      url: opts.url,
      maxConnections,
      maxMessages: Infinity,
      maxRequeues: opts.maxRequeues ?? DEFAULT_MAX_REQUEUES,
      connectionTimeout: opts.connectionTimeoutMs,
      greetingTimeout: opts.greetingTimeoutMs ?? opts.connectionTimeoutMs,
      socketTimeout: opts.socketTimeoutMs,
      tls: opts.tls,
      ...(opts.name !== undefined && { name: opts.name }),
      ...(opts.localAddress !== undefined && { localAddress: opts.localAddress }),
      ...(opts.starttls === 'require' && { requireTLS: true }),
      ...(opts.starttls === 'opportunistic' && { opportunisticTLS: true }),
      // the message is prebuilt bytes: nothing may be fetched from disk or the network
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    if (!Array.isArray((pool as unknown as PoolInternals)._connections)) {
      // fail at start-up, not by quietly treating every server as one without SMTPUTF8
      throw new Error('nodemailer SMTPPool no longer lists its connections in _connections');
    }
    return pool;
  };
  const poolSize = Math.floor(opts.poolSize);
  const pool = newPool(poolSize);
  const overflowMax = Math.max(0, Math.floor(opts.overflowConnections ?? 0));
  const overflow = overflowMax > 0 ? newPool(overflowMax) : undefined;
  const slowMs = opts.slowAnswerMs ?? 1000;
  /** Sends handed to each pool: when their current session began (0 while queued). */
  const onPool = new Set<SessionClock>();
  const onOverflow = new Set<SessionClock>();

  /** The pool for the next send: the overflow only while the pool is full and answers are slow. */
  function choosePool(): { pool: SMTPPool; sends: Set<SessionClock> } {
    if (overflow === undefined || onPool.size < poolSize) return { pool, sends: onPool };
    const now = performance.now();
    let slow = 0;
    for (const sends of [onPool, onOverflow]) {
      for (const s of sends) if (s.since > 0 && now - s.since >= slowMs) slow++;
    }
    return onOverflow.size < Math.min(slow, overflowMax)
      ? { pool: overflow, sends: onOverflow }
      : { pool, sends: onPool };
  }

  const inFlight = new Set<Promise<SendResult>>();
  let closing: Promise<void> | undefined;

  function report(result: SendResult, ms: number): void {
    if (opts.onResult === undefined) return;
    try {
      opts.onResult(result, ms);
    } catch {
      // a metrics hook must never turn a delivered message into a failed one
    }
  }

  async function attempt(msg: OutgoingMessage): Promise<SendResult> {
    const started = performance.now();
    let result: SendResult;
    // the plan of the latest session the pool gave the message to (a requeue plans again)
    let plan: AttemptPlan | undefined;
    const { pool: via, sends } = choosePool();
    const clock: SessionClock = { since: 0 };
    sends.add(clock);
    try {
      const info = await new Promise<SMTPPool.SentMessageInfo | undefined>((resolve, reject) => {
        const mail = rawMail(
          msg,
          opts.sendTimeoutMs !== undefined ? AbortSignal.timeout(opts.sendTimeoutMs) : undefined,
          (m) => {
            clock.since = performance.now();
            return (plan = planAttempt(msg, sessionOffersSmtpUtf8(via, m)));
          },
        );
        via.send(mail, (err, sent) => (err ? reject(err) : resolve(sent)));
      });
      result = withRejected(classifySendInfo(info), plan?.refused ?? []);
    } catch (err) {
      result = plan?.fatal ?? classifySendError(err);
    } finally {
      sends.delete(clock);
    }
    report(result, performance.now() - started);
    return result;
  }

  return {
    send(msg) {
      if (closing !== undefined) {
        const result: SendResult = { kind: 'soft_fail', detail: 'SMTP sender is closed' };
        report(result, 0);
        return Promise.resolve(result);
      }
      const p = attempt(msg);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      return p;
    },
    async verify() {
      try {
        return (await pool.verify()) === true;
      } catch {
        return false;
      }
    },
    close() {
      closing ??= (async () => {
        // queued and in-flight sends finish first: closing the pool would fail the queued ones
        await Promise.allSettled([...inFlight]);
        pool.close();
        overflow?.close();
      })();
      return closing;
    },
  };
}

/** The envelope one attempt hands to nodemailer's SMTPConnection#send. */
interface AttemptEnvelope {
  from: string;
  to: string[];
  /** Adds `BODY=8BITMIME` (RFC 6152) where the server offers it: the header fields are UTF-8. */
  use8BitMime?: boolean;
}

/** When a send's current session began (`performance.now()`; 0 while it waits for one). */
interface SessionClock {
  since: number;
}

/** What one attempt sends over the session the pool gave it. */
export interface AttemptPlan {
  envelope: AttemptEnvelope;
  raw: Buffer;
  /** Recipients left out of the envelope because this hop cannot take their address. */
  refused: RejectedRecipient[];
  /**
   * Set when nothing may go over this hop: the outcome to report. The envelope then has no
   * recipient, so nodemailer refuses the message locally before MAIL FROM.
   */
  fatal?: SendResult;
}

/**
 * Decides what goes over a session whose EHLO reply did (`smtpUtf8`) or did not offer SMTPUTF8.
 * With the offer, a UTF-8 envelope goes as it is and nodemailer adds `SMTPUTF8` to MAIL FROM
 * (RFC 6531), with the UTF-8 header fields of `raw` (RFC 6532). Without it, RFC 6531 leaves no
 * way to send a UTF-8 address: a UTF-8 sender fails the whole message, UTF-8 recipients are
 * refused one by one (553 5.6.7) while the others get {@link OutgoingMessage.asciiRaw}.
 * Internationalised domains are A-labels already and need nothing.
 */
export function planAttempt(msg: OutgoingMessage, smtpUtf8: boolean): AttemptPlan {
  const { from, to } = msg.envelope;
  const utf8Sender = needsSmtpUtf8(from);
  const utf8Recipients = to.filter(needsSmtpUtf8);
  if (!utf8Sender && utf8Recipients.length === 0) {
    // UTF-8 only in a header no envelope address matches (Reply-To): nodemailer declares
    // SMTPUTF8 for a UTF-8 envelope only, so the ASCII form goes, whatever the server offers
    return { envelope: { from, to: [...to] }, raw: msg.asciiRaw ?? msg.raw, refused: [] };
  }
  if (smtpUtf8) {
    const envelope: AttemptEnvelope = { from, to: [...to] };
    if (msg.asciiRaw !== undefined) envelope.use8BitMime = true;
    return { envelope, raw: msg.raw, refused: [] };
  }
  const raw = msg.asciiRaw ?? msg.raw;
  if (utf8Sender) {
    return { envelope: { from, to: [] }, raw, refused: [], fatal: smtpUtf8Failure(from, utf8Recipients) };
  }
  const ascii = to.filter((a) => !needsSmtpUtf8(a));
  if (ascii.length === 0) {
    return {
      envelope: { from, to: [] },
      raw,
      refused: [],
      fatal: smtpUtf8Failure(undefined, utf8Recipients),
    };
  }
  return { envelope: { from, to: ascii }, raw, refused: utf8Recipients.map(smtpUtf8Refusal) };
}

type PoolMail = Parameters<SMTPPool['send']>[0];

/**
 * The pool's connections and the EHLO keywords of their sessions. nodemailer has no public
 * accessor for either (both are private fields of SMTPPool and SMTPConnection); they are read
 * here only, defensively, and the integration tests cover a server with and without SMTPUTF8.
 */
interface PoolInternals {
  _connections?: {
    queueEntry?: { mail?: unknown } | false;
    connection?: { _supportedExtensions?: unknown };
  }[];
}

/** Whether the session the pool assigned `mail` to announced SMTPUTF8 in its EHLO reply. */
function sessionOffersSmtpUtf8(pool: SMTPPool, mail: PoolMail): boolean {
  for (const resource of (pool as unknown as PoolInternals)._connections ?? []) {
    if (resource.queueEntry && resource.queueEntry.mail === mail) {
      const extensions = resource.connection?._supportedExtensions;
      return Array.isArray(extensions) && extensions.includes('SMTPUTF8');
    }
  }
  return false;
}

/** The parts of nodemailer's MailMessage that SMTPPool and its connections read. */
interface RawMail {
  data: { signal?: AbortSignal };
  message: {
    getEnvelope(): AttemptEnvelope;
    messageId(): string;
    getHeader(name: string): string;
    createReadStream(): PassThrough;
  };
}

/**
 * `plan` is called when the pool hands the message to a connected session (nodemailer reads
 * the envelope right before MAIL FROM, then the bytes), once per attempt.
 */
function rawMail(
  msg: OutgoingMessage,
  signal: AbortSignal | undefined,
  plan: (mail: PoolMail) => AttemptPlan,
): PoolMail {
  const id = msg.messageId ?? '';
  let current: AttemptPlan | undefined;
  const mail: RawMail = {
    data: signal !== undefined ? { signal } : {},
    message: {
      // a fresh object per attempt: the connection adds DSN/REQUIRETLS fields to it
      getEnvelope: () => {
        current = plan(mail as unknown as PoolMail);
        return { ...current.envelope, to: [...current.envelope.to] };
      },
      messageId: () => id,
      getHeader: (name) => (name.toLowerCase() === 'message-id' ? id : ''),
      // a fresh stream per attempt: a message requeued after a dropped connection is read again
      createReadStream: () => {
        const s = new PassThrough();
        s.end(current?.raw ?? msg.raw);
        return s;
      },
    },
  };
  return mail as unknown as PoolMail;
}

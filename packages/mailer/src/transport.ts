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
 */
import { PassThrough } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import SMTPPool from 'nodemailer/lib/smtp-pool';
import { classifySendError, classifySendInfo, type SendResult } from './classify.js';
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
}

/** A message ready for the wire, as {@link buildMessage} returns it. */
export interface OutgoingMessage {
  raw: Buffer;
  envelope: MessageEnvelope;
  /** The Message-ID header value (with angle brackets), for the pool's log lines. */
  messageId?: string;
}

export interface SmtpSender {
  /** Sends one message; resolves with its outcome, never rejects for an SMTP outcome. */
  send(msg: OutgoingMessage): Promise<SendResult>;
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
  const pool = new SMTPPool({
    url: opts.url,
    maxConnections: Math.floor(opts.poolSize),
    maxMessages: Infinity,
    maxRequeues: opts.maxRequeues ?? DEFAULT_MAX_REQUEUES,
    connectionTimeout: opts.connectionTimeoutMs,
    greetingTimeout: opts.greetingTimeoutMs ?? opts.connectionTimeoutMs,
    socketTimeout: opts.socketTimeoutMs,
    tls: opts.tls,
    // the message is prebuilt bytes: nothing may be fetched from disk or the network
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  });
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
    try {
      const info = await new Promise<SMTPPool.SentMessageInfo | undefined>((resolve, reject) => {
        const mail = rawMail(
          msg,
          opts.sendTimeoutMs !== undefined ? AbortSignal.timeout(opts.sendTimeoutMs) : undefined,
        );
        pool.send(mail, (err, sent) => (err ? reject(err) : resolve(sent)));
      });
      result = classifySendInfo(info);
    } catch (err) {
      result = classifySendError(err);
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
      })();
      return closing;
    },
  };
}

type PoolMail = Parameters<SMTPPool['send']>[0];

/** The parts of nodemailer's MailMessage that SMTPPool and its connections read. */
interface RawMail {
  data: { signal?: AbortSignal };
  message: {
    getEnvelope(): { from: string; to: string[] };
    messageId(): string;
    getHeader(name: string): string;
    createReadStream(): PassThrough;
  };
}

function rawMail(msg: OutgoingMessage, signal: AbortSignal | undefined): PoolMail {
  const id = msg.messageId ?? '';
  const mail: RawMail = {
    data: signal !== undefined ? { signal } : {},
    message: {
      // a fresh object per attempt: the connection adds DSN/REQUIRETLS fields to it
      getEnvelope: () => ({ from: msg.envelope.from, to: [...msg.envelope.to] }),
      messageId: () => id,
      getHeader: (name) => (name.toLowerCase() === 'message-id' ? id : ''),
      // a fresh stream per attempt: a message requeued after a dropped connection is read again
      createReadStream: () => {
        const s = new PassThrough();
        s.end(msg.raw);
        return s;
      },
    },
  };
  return mail as unknown as PoolMail;
}

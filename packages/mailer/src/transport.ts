/**
 * The pooled SMTP sender: nodemailer's pool transport handed prebuilt `raw` MIME and an
 * explicit envelope (it composes nothing). It owns the connections to one relay (or MX);
 * it never throws for an SMTP outcome — every attempt ends as a {@link SendResult} — and never
 * retries across attempts: that is the send queue's job, on the retry policy's schedule.
 */
import type { ConnectionOptions } from 'node:tls';
import { createTransport } from 'nodemailer';
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
  const transporter = createTransport({
    pool: true,
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
      const info = await transporter.sendMail({
        envelope: { from: msg.envelope.from, to: msg.envelope.to },
        raw: msg.raw,
        ...(opts.sendTimeoutMs !== undefined ? { signal: AbortSignal.timeout(opts.sendTimeoutMs) } : {}),
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
        return (await transporter.verify()) === true;
      } catch {
        return false;
      }
    },
    close() {
      closing ??= (async () => {
        // queued and in-flight sends finish first: closing the pool would fail the queued ones
        await Promise.allSettled([...inFlight]);
        transporter.close();
      })();
      return closing;
    },
  };
}

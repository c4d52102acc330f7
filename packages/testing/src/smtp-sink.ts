// In-process SMTP sink for integration tests: a real smtp-server on 127.0.0.1 that records
// and fully parses (postal-mime) every message it accepts, and answers by a scripted plan
// (4xx-then-250, 550 at RCPT, 552 at DATA, 421 at connect). For load and chaos runs use
// startSmtpSinkProcess(), which keeps the sink's CPU out of the test process.
import PostalMime, { type Email } from 'postal-mime';
import {
  startSinkServer,
  type ConnectionRefusal,
  type SinkAttempt,
  type SinkEnvelope,
  type SinkPlan,
} from '../bin/sink-core.mjs';
import { Arrivals } from './arrivals.js';

export type { ConnectionRefusal, SinkAttempt, SinkEnvelope, SinkPlan, SinkStep } from '../bin/sink-core.mjs';

/** One accepted message. */
export interface SinkMessage {
  /** `envelope.wire` is always there: the addresses exactly as the client sent them. */
  envelope: SinkEnvelope & Required<Pick<SinkEnvelope, 'wire'>>;
  /** The DATA as received (dot-unstuffed). */
  raw: Buffer;
  /** postal-mime's parse: messageId, subject, from, to, cc, headers [{key, value}], html, text, attachments… */
  parsed: Email;
  /** Date.now() when the final dot arrived. */
  receivedAt: number;
}

/** Options of {@link startSmtpSink}. */
export interface SmtpSinkOptions {
  /** Fixed port; a free one by default. */
  port?: number;
  /** Scripted replies per recipient address / domain / '*'; unlisted recipients are accepted. */
  plan?: SinkPlan;
  /** Announce SMTPUTF8 (RFC 6531) in the EHLO reply, as smtp-server does by default; default true. */
  smtpUtf8?: boolean;
  /**
   * Address to listen on; default 127.0.0.1. Other loopback addresses (127.0.0.2, 127.0.0.3…)
   * reach `lo` on Linux: several sinks on one port, as MX hosts behind one DIRECT_SMTP_PORT.
   */
  host?: string;
  /** Offer STARTTLS with this key and certificate (PEM): an MX with TLS, its certificate good or bad. */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

/** A running in-process sink. */
export interface SmtpSink {
  /** `smtp://<host>:<port>` (127.0.0.1 by default) */
  url: string;
  /** The address it listens on. */
  host: string;
  port: number;
  /** Accepted messages, in arrival order. */
  readonly messages: SinkMessage[];
  /** Every RCPT TO with the step the plan chose, in arrival order (attempt timing). */
  readonly attempts: SinkAttempt[];
  /** Resolves with the messages once at least `count` were accepted (default timeout 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<SinkMessage[]>;
  /** Every accepted copy with this Message-ID (with or without <>); more than one is a duplicate. */
  byMessageId(messageId: string): SinkMessage[];
  /** TCP connections accepted since the start (or the last clear), refused ones included. */
  connectionCount(): number;
  /** How many RCPT TO this recipient has had. */
  attemptsFor(address: string): number;
  /** The next `n` connections get `reply` (421 by default) instead of the greeting. */
  rejectConnections(n: number, reply?: ConnectionRefusal): void;
  /** Forgets messages, attempt counts and pending connection refusals. */
  clear(): void;
  /** Cuts open sessions and closes the port. */
  stop(): Promise<void>;
}

const bareId = (id: string): string => id.trim().replace(/^<|>$/g, '');

/** Starts the in-process sink on 127.0.0.1 (or `opts.host`). */
export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const host = opts.host ?? '127.0.0.1';
  const arrivals = new Arrivals<SinkMessage>('SMTP sink', 'messages');
  const messages = arrivals.items;

  const server = await startSinkServer({
    ...(opts.port !== undefined && { port: opts.port }),
    ...(opts.plan !== undefined && { plan: opts.plan }),
    ...(opts.smtpUtf8 !== undefined && { smtpUtf8: opts.smtpUtf8 }),
    ...(opts.host !== undefined && { host: opts.host }),
    ...(opts.tls !== undefined && { tls: opts.tls }),
    // tests read the addresses as sent (envelope.wire); the sink process leaves this off
    recordWire: true,
    async onMessage(raw, envelope) {
      const parsed = await PostalMime.parse(raw);
      const wire = envelope.wire ?? { from: envelope.from, to: envelope.to };
      arrivals.push({ envelope: { ...envelope, wire }, raw, parsed, receivedAt: Date.now() });
    },
  });

  let connectionsAtClear = 0;
  return {
    url: `smtp://${host}:${server.port}`,
    host,
    port: server.port,
    messages,
    attempts: server.book.log,
    waitFor: (count, timeoutMs) => arrivals.waitFor(count, timeoutMs),
    byMessageId(messageId) {
      const wanted = bareId(messageId);
      return messages.filter(
        (m) => m.parsed.messageId !== undefined && bareId(m.parsed.messageId) === wanted,
      );
    },
    connectionCount: () => server.connectionsAccepted() - connectionsAtClear,
    attemptsFor: (address) => server.book.attemptsFor(address),
    rejectConnections: (n, reply) => server.book.rejectConnections(n, reply),
    clear() {
      connectionsAtClear = server.connectionsAccepted();
      arrivals.clear();
      server.book.reset();
    },
    stop: () => server.stop(),
  };
}

/** Types of sink-core.mjs (the shared SMTP sink engine). */

/** One scripted reply. `at: 'connect'` keyed by recipient replies at RCPT and hangs up. */
export type SinkStep =
  | 'accept'
  | { at: 'connect' | 'rcpt' | 'data'; code: number; message?: string; stall?: false }
  | { at: 'connect' | 'rcpt' | 'data'; stall: true; code?: number; message?: string };

/**
 * Scripted replies keyed by recipient address, recipient domain or `'*'` (looked up in that
 * order). Entry i answers the recipient's attempt i + 1; the last entry repeats.
 */
export type SinkPlan = Record<string, SinkStep[]>;

/** One RCPT TO seen by the sink, with the step the plan chose for it. */
export interface SinkAttempt {
  /** Lower-cased recipient address. */
  address: string;
  /** 1 for the first RCPT TO of this recipient, 2 for the next… */
  attempt: number;
  step: SinkStep;
  /** Date.now() when the RCPT TO arrived. */
  time: number;
}

export interface ConnectionRefusal {
  /** Reply code at the greeting, 421 by default. */
  code?: number;
  message?: string;
  /** Never greet: the client hits its greeting timeout. */
  stall?: boolean;
}

export interface PlanBook {
  readonly log: SinkAttempt[];
  attemptsFor(address: string): number;
  nextStep(address: string): SinkStep;
  rejectConnections(n: number, reply?: ConnectionRefusal): void;
  takeConnectionRefusal():
    (Required<Omit<ConnectionRefusal, 'message'>> & { message?: string; remaining: number }) | undefined;
  reset(): void;
}

export interface SinkEnvelope {
  /** MAIL FROM as smtp-server parsed it: an A-label domain comes back as its U-label. */
  from: string;
  /** Accepted RCPT TO addresses, parsed as `from` is. */
  to: string[];
  /** The client declared SMTPUTF8 (RFC 6531) in MAIL FROM. */
  smtpUtf8: boolean;
  /** The client's address as the sink saw it (the connection's source address). */
  peer?: string;
  /** The session was upgraded with STARTTLS. */
  secure?: boolean;
  /**
   * With `recordWire`: the same addresses exactly as the client wrote them in MAIL FROM and
   * RCPT TO (A-labels stay A-labels).
   */
  wire?: { from: string; to: string[] };
}

export interface SinkServer {
  port: number;
  book: PlanBook;
  connections(): number;
  /** TCP connections accepted since the server started. */
  connectionsAccepted(): number;
  stop(): Promise<void>;
}

export declare const SINK_MAX_MESSAGE_BYTES: number;

export declare function createPlanBook(plan?: SinkPlan): PlanBook;

export declare function extractMessageId(raw: Buffer): string;

export declare function startSinkServer(options: {
  port?: number;
  host?: string;
  plan?: SinkPlan;
  /** Wait this long after recording a message before replying 250 (a slow relay). */
  replyDelayMs?: number;
  /** Announce SMTPUTF8 (RFC 6531) in the EHLO reply; default true. */
  smtpUtf8?: boolean;
  /** Offer STARTTLS with this key and certificate (PEM); without it STARTTLS is not offered. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Record MAIL FROM / RCPT TO as written on the wire ({@link SinkEnvelope.wire}); default false. */
  recordWire?: boolean;
  onMessage: (raw: Buffer, envelope: SinkEnvelope) => unknown;
}): Promise<SinkServer>;

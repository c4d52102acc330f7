/**
 * The ports of the deliver-email use-case: what it needs from the outside world, declared here so
 * the use-case imports no store, queue, SMTP or logging code. In production the Redis stores,
 * the mailer's MIME builder and pooled SMTP sender, and the observability package satisfy them
 * (wired by apps/worker); packages/testing has in-memory versions.
 */
import type { EmailContent } from '@petrel/contracts';
import type { DomainTls, SendLane } from '@petrel/contracts';
import type { CompiledTemplate } from '../templates/parse-template.js';
import type { DkimSigner, SendingDomains } from '../domains/domains-port.js';
import type { DeclaredVariable } from '../templates/render-template.js';
import type { DeliverOutcome } from './outcome.js';
import type {
  ContactPropertyDefinitions,
  ContactsReader,
  RecipientStates,
  SuppressionsWriter,
  UnsubscribeLinks,
} from '../audience/ports.js';
import type { BroadcastReader } from '../broadcasts/ports.js';
import type { BroadcastPaused } from '../broadcasts/protection.js';
import type { TrackingPorts } from '../tracking/ports.js';
import type { Clock } from '../kernel/clock.js';
import type { IdSource } from '../kernel/ids.js';
import type { EmailRecordStore, EmailRecordWriter, EmailToDeliver } from '../emails/record.js';

/** One send job: which email, and how many attempts at it failed before this one. */
export interface DeliveryJob {
  teamId: string;
  emailId: string;
  /** Failed attempts before this one (0 on the first attempt). */
  attemptsMade: number;
}

// ---------------------------------------------------------------------------------------------
// Template versions (TemplatesStore.getCompiledVersion implements it)

/** A template version compiled for rendering. */
export interface CompiledTemplateVersion {
  version: { variables: readonly DeclaredVariable[] };
  html: CompiledTemplate;
  text: CompiledTemplate | undefined;
}

export interface TemplateVersions {
  /** The version an email pinned at acceptance; null when it no longer exists. */
  getCompiledVersion(
    teamId: string,
    templateId: string,
    versionId: string,
  ): Promise<CompiledTemplateVersion | null>;
}

// ---------------------------------------------------------------------------------------------
// MIME and SMTP (packages/mailer's buildMessage and pooled sender implement them)

/** What the MIME builder is given: the content, the envelope and the headers Petrel owns. */
export interface MessageToBuild {
  emailId: string;
  content: EmailContent;
  /** Bare addresses for the SMTP envelope: a subset of to + cc + bcc, as decided. */
  recipients: readonly string[];
  /** Domain part of the Message-ID, `<emailId@messageIdDomain>`. */
  messageIdDomain: string;
  /** Value of the Date header. */
  date: Date;
  /**
   * Headers Petrel owns for this message (List-Unsubscribe…): they replace a custom header of
   * the same name.
   */
  extraHeaders?: Readonly<Record<string, string>>;
}

/** A message ready for SMTP DATA. */
export interface OutgoingEmail {
  /** The whole RFC 5322 message, CRLF line endings. */
  raw: Buffer;
  envelope: { from: string; to: string[] };
  /** The Message-ID header value, with its angle brackets. */
  messageId: string;
  /**
   * Only when `raw` has UTF-8 header fields (RFC 6532): the same message with those mailboxes in
   * an ASCII form, for a hop that does not offer SMTPUTF8 (RFC 6531).
   */
  asciiRaw?: Buffer;
  /**
   * The from-domain's TLS policy (the sign stage sets it from the team's domain): `enforced`
   * means a delivery straight to the recipient's MX must not go on without STARTTLS.
   */
  tls?: DomainTls;
}

/** A message that can never be built (unsafe header, invalid address…) is not retried. */
export type BuildResult = { ok: true; message: OutgoingEmail } | { ok: false; reason: string };

export interface MessageBuilder {
  build(input: MessageToBuild): BuildResult;
}

/**
 * A recipient refused while the message went to the others: by the server at RCPT TO (RFC 5321
 * section 3.3 lets it accept some recipients and refuse others), or by the mailer before any
 * command when the next hop cannot take the address (a UTF-8 local part without SMTPUTF8,
 * RFC 6531).
 */
export interface RejectedRecipient {
  /** As it went on the wire: an internationalised domain as A-labels. */
  address: string;
  /** The reply code, when there was a reply. */
  code?: number;
  /** The enhanced status code (RFC 3463), e.g. `5.1.1`, when the reply had one. */
  enhancedCode?: string;
  /** A 5xx: sending to this address again would be refused again. */
  permanent: boolean;
  detail: string;
  /**
   * No server was asked for this address (its domain's delivery was deferred by a sending pool's
   * warm-up cap): says nothing about the mailbox, so it never counts as its soft bounce.
   */
  deferred?: true;
}

/** The outcome of one SMTP attempt, sorted by the mailer where the reply is read. */
export type SendResult =
  | {
      kind: 'sent';
      code: number;
      response: string;
      /** Recipients refused while the others were accepted; absent when none was. */
      rejected?: readonly RejectedRecipient[];
    }
  | {
      kind: 'soft_fail';
      code?: number;
      enhancedCode?: string;
      retryAfterMs?: number;
      detail: string;
      /**
       * No server was asked: Petrel held the message back itself (a sending pool's warm-up cap).
       * The email waits `retryAfterMs` without spending an attempt of its retry ladder.
       */
      deferred?: true;
    }
  | { kind: 'hard_fail'; code: number; enhancedCode?: string; detail: string };

/**
 * Whose email a message is — its team and its From — for a sender that chooses by them (direct
 * delivery's sending IP pools).
 */
export interface SendOrigin {
  teamId: string;
  from: string;
}

export interface MessageSender {
  /** Never rejects for an SMTP outcome: every attempt ends as a {@link SendResult}. */
  send(message: OutgoingEmail, origin?: SendOrigin): Promise<SendResult>;
}

// ---------------------------------------------------------------------------------------------
// Observation

/** Logs and metrics, kept out of the use-case. Must not throw. */
export interface DeliverObserver {
  /** After every SMTP attempt: what the server said and how long it took. */
  onSmtpResult(result: SendResult, seconds: number): void;
  /** Once per job, with how it ended and the email (null when it was not found). */
  onOutcome(outcome: DeliverOutcome, email: EmailToDeliver | null): void;
  /**
   * A write after the send that failed without changing the email's fate (adding a hard-bounced
   * address to the suppression list): logged, never retried by sending again.
   */
  onSideEffectError(what: string, err: unknown): void;
  /** Complaints recorded by the send itself (a simulated `complained@`), for the complaint metric. */
  onComplaints?(count: number, lane: SendLane): void;
  /** The protection rule paused a broadcast (once per pause): a warn line and a metric. */
  onBroadcastPaused(paused: BroadcastPaused): void;
}

// ---------------------------------------------------------------------------------------------

export interface DeliverPorts {
  emails: EmailRecordStore;
  /**
   * Where what the SMTP server said is written. Separate from `emails` because losing that write
   * after a 250 means sending the email again on the retry: production wires a writer that rides
   * out a short Redis outage.
   */
  outcomes: EmailRecordWriter;
  templates: TemplateVersions;
  mime: MessageBuilder;
  smtp: MessageSender;
  clock: Clock;
  ids: IdSource;
  observer: DeliverObserver;
  /** Suppression, unsubscribe and topic state of the recipients: one read per attempt. */
  recipients: RecipientStates;
  /** Where hard-bounced addresses are added (origin `bounce`). */
  suppressions: SuppressionsWriter;
  unsubscribe: UnsubscribeLinks;
  /**
   * A broadcast's status and content, for its emails (which store no html/text): read only for
   * an email with a broadcast id, so a plain send costs no extra round trip.
   */
  broadcasts: BroadcastReader;
  /** Read only for a broadcast email whose content has contact placeholders. */
  contacts: ContactsReader;
  /** Read only for a broadcast email whose content uses custom properties. */
  contactProperties: ContactPropertyDefinitions;
  /** The team's open/click tracking switches (read per email: cache them) and the tracking links. */
  tracking: TrackingPorts;
  /**
   * The team's sending domains (keys decrypted and cached by the adapter) and the DKIM signer:
   * the sign stage signs and sets the return path only when both are wired.
   */
  domains?: SendingDomains;
  signer?: DkimSigner;
}

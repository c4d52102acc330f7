/**
 * A delivery stage: one named step of {@link DELIVERY_STAGES}. Each reads what earlier stages
 * put on the {@link DeliveryContext}, adds its own part, and either lets the next stage run or
 * ends the delivery with an outcome (after recording what it decided).
 */
import type { AttachmentInput, EmailContent } from '@petrel/contracts';
import type { DeliverOutcome, DeliverStageName } from './outcome.js';
import type { RecipientOutcome } from './recipient-outcomes.js';
import type {
  CompiledTemplateVersion,
  DeliverPorts,
  DeliveryJob,
  OutgoingEmail,
  SendResult,
} from './ports.js';
import type { EmailToDeliver } from '../emails/record.js';
import type { BroadcastProtectionSettings } from '../broadcasts/protection.js';
import type { SoftBounceSettings, SoftBounceStreaks } from './soft-bounces.js';

/** What the stages produce, in pipeline order. */
export interface DeliveryProducts {
  /** resolve-content: what to send, attachments included (a template not rendered yet). */
  content: EmailContent;
  /** resolve-content: the pinned template version, for an email sent from a template. */
  template: CompiledTemplateVersion;
  /** decide-recipients: the bare addresses for the SMTP envelope. */
  recipients: string[];
  /** decide-recipients: the addresses left out (suppressed, opted out…), each with why. */
  dropped: RecipientOutcome[];
  /**
   * track: the html of each recipient, with their own open pixel and link tokens (only when the
   * team tracks opens or clicks); each recipient then gets a message of their own.
   */
  recipientHtml: ReadonlyMap<string, string>;
  /** decorate: the headers Petrel owns, as this attempt writes them. */
  decoration: Decoration;
  /**
   * build-mime: the messages ready for SMTP DATA — one for all recipients, or one per recipient
   * when each must carry its own headers (a personal List-Unsubscribe link).
   */
  messages: OutgoingEmail[];
  /**
   * simulate: the test addresses taken out of the envelopes, each with the reply it simulates
   * (simulator.ts); send reads them with the server's replies.
   */
  simulated: SimulatedRecipient[];
  /** send: what the SMTP server said. */
  result: SendResult;
  /**
   * record-and-publish: the outcome it recorded. The stages after it carry out what follows from
   * a recorded outcome (soft-bounces) and never change it; the pipeline ends with it.
   */
  outcome: Extract<DeliverOutcome, { kind: 'delivered' | 'delayed' | 'bounced' }>;
}

/** A test address answered by the simulate stage instead of an SMTP server. */
export interface SimulatedRecipient {
  address: string;
  result: SendResult;
  /** `complained@`: once delivered, a complaint is recorded and the address suppressed. */
  complaint: boolean;
}

/** Message-ID (fixed at acceptance, so a retry never becomes a second email) and Date. */
export interface Decoration {
  messageIdDomain: string;
  date: Date;
  /**
   * Headers Petrel writes for one recipient only, by recipient (as in `recipients`): when set,
   * each recipient gets a message of its own carrying them.
   */
  recipientHeaders?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** What the pipeline knows about one delivery; each stage fills in its part. */
export interface DeliveryContext extends Partial<DeliveryProducts> {
  readonly job: DeliveryJob;
  /** The record as loaded; its status was sendable. */
  readonly email: EmailToDeliver;
  readonly attachments: AttachmentInput[];
}

export interface DeliverDeps extends DeliverPorts {
  /** Length of the retry ladder: after this many temporary failures the email bounces. */
  retries: number;
  /**
   * SIMULATOR_DOMAIN: a domain of the operator's whose `delivered@`, `bounced@`… are simulated
   * like Resend's `resend.dev` test addresses (simulator.ts).
   */
  simulatorDomain?: string | undefined;
  /**
   * The team's broadcast protection (broadcasts/protection.ts): the thresholds that pause a
   * broadcast, and how long a paused broadcast's email waits before it looks again
   * (BROADCAST_PROTECTION_*, BROADCAST_HOLD_RECHECK_MS); default the documented defaults.
   */
  protection?: BroadcastProtectionSettings | undefined;
  /**
   * Soft-bounce suppression (soft-bounces.ts): the rule's settings and where the streaks are
   * kept (SOFT_BOUNCE_SUPPRESS_*); absent or `emails: 0`, no streak is read or written.
   */
  softBounces?: { settings: SoftBounceSettings; streaks: SoftBounceStreaks } | undefined;
}

/** The context as a stage needing `K` sees it: those products are there. */
export type ContextWith<K extends keyof DeliveryProducts> = DeliveryContext &
  Required<Pick<DeliveryProducts, K>>;

export interface DeliverStage<K extends keyof DeliveryProducts = keyof DeliveryProducts> {
  readonly name: DeliverStageName;
  /** Products this stage reads; the pipeline refuses to run it before they exist. */
  readonly needs: readonly K[];
  /** Returns an outcome to end the delivery, or nothing to go on. */
  run(ctx: ContextWith<K>, deps: DeliverDeps): Promise<DeliverOutcome | void> | DeliverOutcome | void;
}

/**
 * Where DKIM signing plugs in (RFC 6376): a `sign` stage (its name added to DeliverStageName)
 * that needs `messages`, prepends a DKIM-Signature header to each `raw` and puts them back. It
 * goes between build-mime and send, so the signature covers the final bytes and every retry
 * signs afresh, and joins the list once there are keys to sign with.
 */
export type SignStage = DeliverStage<'messages'>;

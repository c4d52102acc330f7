/**
 * The ports of the inbound use-cases (receive-inbound.ts, process-report.ts): where received
 * messages are stored, where sent emails are found and their events recorded, and where bad
 * addresses are suppressed. packages/store implements them (InboundStore, SentEmailsLocator,
 * SuppressionsStore).
 */
import type { EmailEvent, InboundEmailRecord } from '@petrel/contracts';
import type { SuppressionsWriter } from '../audience/ports.js';
import type { InboxesPort } from '../inboxes/ports.js';
import type { AgentRunQueue } from '../inboxes/agent-run.js';
import type { Clock } from '../kernel/clock.js';
import type { EmailToDeliver, StatusEvent } from '../emails/record.js';
import type { IdSource } from '../kernel/ids.js';

export interface InboundEmailsWriter {
  /**
   * Stores one received email for `teamId` — the record, the raw message, its listing entry —
   * and publishes `event` (email.received) on the team's events stream, in one step.
   */
  save(teamId: string, record: InboundEmailRecord, raw: Buffer, event: EmailEvent): Promise<void>;
}

export interface SentEmails {
  /** The sent email with this id, in whichever team holds it; null when none does. */
  find(emailId: string): Promise<EmailToDeliver | null>;
  /** Append events to the email's timeline and publish them (status only moves forward). */
  recordEvents(teamId: string, emailId: string, items: StatusEvent[]): Promise<unknown>;
}

export interface ReceivePorts {
  inbound: InboundEmailsWriter;
  /** The team's inboxes: a received email at an inbox's address is filed into its threads too. */
  inboxes?: InboxesPort;
  /** Given only where a model endpoint is configured: a filed message queues its inbox agent's run. */
  agentRuns?: AgentRunQueue;
  clock: Clock;
  ids: IdSource & { newId(): string };
}

export interface ReportPorts {
  emails: SentEmails;
  suppressions: SuppressionsWriter;
  clock: Clock;
  ids: IdSource;
  /** The configured BOUNCE_DOMAIN, for VERP matching. */
  bounceDomain: string | undefined;
}

/**
 * The ports of the events use-cases: the definitions and the received-events log
 * (CustomEventsStore), the contacts (the contact use-cases' ports, reused to find or create the
 * contact of an email), the Idempotency-Key store of POST /emails, and the automation engine's
 * entry ({@link AutomationTriggers}).
 */
import type { CustomEventRecord, EventSchemaMap, ReceivedEventRecord } from '@petrel/contracts';
import type { IdempotencyPort } from '../accept/ports.js';
import type { ContactPorts } from '../audience/contacts/contacts.use-cases.js';
import type { Page, PageRequest } from '../kernel/page.js';
import type { AutomationTriggers } from '../automations/ports.js';

export type CreateCustomEventResult =
  { ok: true; record: CustomEventRecord } | { ok: false; reason: 'name_taken' };

export interface CustomEventsPort {
  /** A definition by id or by name (names never have the shape of an id). */
  get(teamId: string, idOrName: string): Promise<CustomEventRecord | null>;
  /** Newest first; null when the cursor names no definition. */
  list(teamId: string, page: PageRequest): Promise<Page<CustomEventRecord> | null>;
  /** Refused when the team has a definition of that name already (decided atomically). */
  create(
    teamId: string,
    input: { name: string; schema: EventSchemaMap | null },
  ): Promise<CreateCustomEventResult>;
  /** Replaces the schema (null clears it); the record written, or null when there is none. */
  setSchema(
    teamId: string,
    idOrName: string,
    schema: EventSchemaMap | null,
  ): Promise<CustomEventRecord | null>;
  /** The deleted record, or null. Received events of that name stay in the log. */
  remove(teamId: string, idOrName: string): Promise<CustomEventRecord | null>;
  /**
   * Appends a received event to the team's capped log; a second call with the same id is a
   * no-op (a retry under an Idempotency-Key recomputes the same id).
   */
  recordReceived(teamId: string, event: ReceivedEventRecord): Promise<void>;
}

/** The Idempotency-Key store as POST /emails uses it, plus the completion of a send. */
export interface EventIdempotencyPort extends IdempotencyPort {
  /** Store the response under the claimed key (after the hand-over: a replay names a handed-over event). */
  complete(token: unknown, status: number, body: string): Promise<void>;
}

export interface SendEventPorts extends ContactPorts {
  events: CustomEventsPort;
  idempotency: EventIdempotencyPort;
  triggers: AutomationTriggers;
  clock: { now(): number };
}

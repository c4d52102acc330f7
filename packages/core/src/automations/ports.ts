/**
 * Ports between the events API (an application sends a named event for a contact) and the
 * automation engine (runs started or resumed by those events). The events use-case validates and
 * records the event, resolves its contact, then hands it to {@link AutomationTriggers}; the engine's
 * adapter makes that hand-over durable (a queued job) before the API answers 202.
 */

/** One event sent through `POST /events/send`, after validation and schema coercion. */
export interface ReceivedEvent {
  /** A UUIDv7 from `newId()`; the engine derives its job ids from it, so a redelivery is a no-op. */
  readonly id: string;
  readonly teamId: string;
  /** The event's name, as sent (`user.signed_up`). */
  readonly name: string;
  /** The contact the event is about: resolved, or created for an email, before the hand-over. */
  readonly contactId: string;
  /** The payload, coerced to the event's schema when it has one. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** ISO 8601. */
  readonly receivedAt: string;
}

/** Where received events go: the automation engine starts matching runs and resumes waiting ones. */
export interface AutomationTriggers {
  /** Resolves once the event is durably handed over (the API answers 202 only after it). */
  eventReceived(event: ReceivedEvent): Promise<void>;
}

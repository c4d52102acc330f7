/**
 * Use-cases of the events API (Resend's `/events`): define, read, list, re-type and delete named
 * events, and send one for a contact. The body has passed the wire schema
 * (@petrel/contracts custom-events.ts); these add the rules that need stored state.
 *
 * Sending an event nobody defined is allowed: Resend accepts events that were never created
 * (a definition only adds a schema), so the payload of an undefined event passes as sent.
 */
import {
  PetrelError,
  fieldMessage,
  notFound,
  validationError,
  type CreateEventInput,
  type CustomEventRecord,
  type EventSchemaMap,
  type SendEventInput,
} from '@petrel/contracts';
import { CUSTOM_EVENT_LIMITS } from '@petrel/contracts';
import { checkIdempotencyKey } from '../accept/idempotency.js';
import { EMAIL_TAKEN_MESSAGE, contactEmail, createContact } from '../audience/contacts/contacts.use-cases.js';
import { deterministicEmailId, idKey, newId, UUID_RE } from '../kernel/ids.js';
import type { ReceivedEvent } from '../automations/ports.js';
import type { Page, PageRequest } from '../kernel/page.js';
import { coercePayload } from './coerce-payload.js';
import { idempotentPost, type IdempotentAnswer } from './idempotent-post.js';
import type { CustomEventsPort, SendEventPorts } from './ports.js';
import { foundId } from '../kernel/found.js';

/** The message of a create whose name the team has defined already (a validation error, as contacts). */
export const EVENT_NAME_TAKEN = 'an event with this name already exists';

export async function createEvent(
  cmd: { teamId: string; input: CreateEventInput },
  ports: { events: CustomEventsPort },
): Promise<{ id: string }> {
  const res = await ports.events.create(cmd.teamId, {
    name: cmd.input.name,
    schema: cmd.input.schema ?? null,
  });
  if (!res.ok) throw validationError(fieldMessage(['name'], EVENT_NAME_TAKEN));
  return { id: res.record.id };
}

export async function getEvent(
  cmd: { teamId: string; idOrName: string },
  ports: { events: CustomEventsPort },
): Promise<CustomEventRecord> {
  const found = await ports.events.get(cmd.teamId, cmd.idOrName);
  if (!found) throw notFound('Event');
  return found;
}

/** GET /events: newest first; an unknown cursor is a validation error naming it. */
export async function listEvents(
  cmd: { teamId: string; page: PageRequest },
  ports: { events: CustomEventsPort },
): Promise<Page<CustomEventRecord>> {
  const page = await ports.events.list(cmd.teamId, cmd.page);
  if (!page) throw validationError(fieldMessage([cmd.page.after ? 'after' : 'before'], 'no such event'));
  return page;
}

export async function updateEvent(
  cmd: { teamId: string; idOrName: string; schema: EventSchemaMap | null },
  ports: { events: CustomEventsPort },
): Promise<{ id: string }> {
  return foundId(ports.events.setSchema(cmd.teamId, cmd.idOrName, cmd.schema), 'Event');
}

export async function deleteEvent(
  cmd: { teamId: string; idOrName: string },
  ports: { events: CustomEventsPort },
): Promise<{ id: string }> {
  return foundId(ports.events.remove(cmd.teamId, cmd.idOrName), 'Event');
}

/** What POST /events/send answers (202), fresh or replayed under an Idempotency-Key. */
export type SendEventResponse = IdempotentAnswer;

/** The endpoint an event's deterministic id and its fingerprint are derived under. */
const SEND_ENDPOINT = 'POST /events/send';

/**
 * POST /events/send: claim the Idempotency-Key (a completed send with the same body replays; see
 * accept/idempotency.ts), then type the payload, resolve the contact (found by id, or found or
 * created by email), record the event and hand it to the automation engine; the 202 goes out
 * (and is stored under the key) only once the hand-over resolved. With a key the event's id is
 * derived from it, so a retry after a crash records and hands over the same event.
 */
export async function sendEvent(
  cmd: { teamId: string; idempotencyKey: string | undefined; input: SendEventInput; rawBody: unknown },
  ports: SendEventPorts,
): Promise<SendEventResponse> {
  checkIdempotencyKey(cmd.idempotencyKey);
  const target = sendTarget(cmd.input);
  checkPayloadBounds(cmd.input.payload ?? {});
  // the events adapter's fingerprint names its own endpoint (`single` only satisfies the shared type)
  return idempotentPost(cmd, cmd.rawBody, ports.idempotency, 202, async (claim) => {
    const { teamId, input } = cmd;
    const definition = await ports.events.get(teamId, input.event);
    const payload = typedPayload(definition, input.payload ?? {});
    const contactId = await resolveContact(teamId, target, ports);
    const nowMs = ports.clock.now();
    const event: ReceivedEvent = {
      // the derivation of POST /emails' ids, under this endpoint's name: never to change either
      id:
        cmd.idempotencyKey !== undefined
          ? deterministicEmailId(teamId, cmd.idempotencyKey, SEND_ENDPOINT, 0, claim.startedMs ?? nowMs)
          : newId(nowMs),
      teamId,
      name: input.event,
      contactId,
      payload,
      receivedAt: new Date(nowMs).toISOString(),
    };
    await ports.events.recordReceived(teamId, {
      id: event.id,
      name: event.name,
      contact_id: contactId,
      payload,
      created_at: event.receivedAt,
    });
    await ports.triggers.eventReceived(event);
    return JSON.stringify({ object: 'event', event: input.event });
  });
}

type SendTarget = { contactId: string } | { email: string };

/** Exactly one of `contact_id` and `email` (null counts as absent), checked before any claim. */
export function sendTarget(input: Pick<SendEventInput, 'contact_id' | 'email'>): SendTarget {
  const hasId = input.contact_id !== undefined && input.contact_id !== null;
  const hasEmail = input.email !== undefined && input.email !== null;
  if (hasId && hasEmail)
    throw validationError('contact_id, email: give exactly one of contact_id and email, not both');
  if (!hasId && !hasEmail)
    throw validationError('contact_id, email: exactly one of contact_id and email is required');
  if (hasId) {
    const id = input.contact_id!;
    if (!UUID_RE.test(id)) throw validationError(fieldMessage(['contact_id'], 'must be a contact id (UUID)'));
    return { contactId: idKey(id) };
  }
  return { email: contactEmail(input.email!) };
}

/**
 * The payload's size: at most CUSTOM_EVENT_LIMITS.payloadDepth levels deep (checked without
 * recursion, before anything serialises it) and payloadBytes long as JSON.
 */
export function checkPayloadBounds(payload: Record<string, unknown>): void {
  const { payloadDepth, payloadBytes } = CUSTOM_EVENT_LIMITS;
  const stack: [unknown, number][] = [[payload, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (depth > payloadDepth)
      throw validationError(fieldMessage(['payload'], `must nest at most ${payloadDepth} levels deep`));
    for (const child of Object.values(value as object)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  if (bytes > payloadBytes)
    throw validationError(fieldMessage(['payload'], `at most ${payloadBytes} bytes as JSON (got ${bytes})`));
}

/** The payload as recorded: coerced to the definition's schema when it has one. */
export function typedPayload(
  definition: CustomEventRecord | null,
  payload: Record<string, unknown>,
): Record<string, unknown> {
  if (!definition?.schema) return payload;
  const res = coercePayload(definition.schema, payload);
  if (!res.ok) throw validationError(fieldMessage(['payload', res.field], res.rule));
  return res.payload;
}

/**
 * The contact's id: by id (404 when the team has none), or by email — the contact of that
 * mailbox, created by the contacts use-case when there is none (a concurrent send creating the
 * same contact makes the create refuse; the contact it made is then read back).
 */
async function resolveContact(teamId: string, target: SendTarget, ports: SendEventPorts): Promise<string> {
  if ('contactId' in target) {
    const contact = await ports.contacts.get(teamId, target.contactId);
    if (!contact) throw notFound('Contact');
    return contact.id;
  }
  const existing = await ports.contacts.get(teamId, target.email);
  if (existing) return existing.id;
  try {
    return (await createContact({ teamId, input: { email: target.email } }, ports)).id;
  } catch (err) {
    if (!(err instanceof PetrelError && err.message === EMAIL_TAKEN_MESSAGE)) throw err;
    const raced = await ports.contacts.get(teamId, target.email);
    if (!raced) throw err;
    return raced.id;
  }
}

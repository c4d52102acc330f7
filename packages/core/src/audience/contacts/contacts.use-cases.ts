/**
 * Use-cases of the contact endpoints: create (POST /contacts, and the legacy
 * POST /audiences/:id/contacts), update (PATCH /contacts/:c) and the contact's topic choices
 * (PATCH /contacts/:c/topics). The body has passed the wire schema (schemas.ts); these add the
 * rules that need stored state: a bare valid address, one contact per mailbox, defined
 * properties of the right type, existing segments and topics.
 */
import { fieldMessage, notFound, validationError } from '@petrel/contracts';
import { mailboxKey, parseAddress } from '../../kernel/mailbox.js';
import { resolvePropertyValues, type PropertyInput } from './property-values.js';
import type { ContactPatch, ContactPropertiesPort, ContactsPort } from './ports.js';
import type { CreateContactInput, UpdateContactInput, UpdateContactTopicsInput } from './schemas.js';

export interface ContactPorts {
  contacts: ContactsPort;
  properties: ContactPropertiesPort;
}

/** The message of a create whose mailbox already has a contact (Resend answers a validation error). */
export const EMAIL_TAKEN_MESSAGE = 'email: a contact with this email already exists';

/** The contact's address: a bare `local@domain` a send would accept (no display name). */
export function contactEmail(input: string): string {
  const parsed = parseAddress(input);
  if (!parsed.ok)
    throw validationError(fieldMessage(['email'], `is not a valid email address (${parsed.reason})`));
  if (parsed.name !== undefined) {
    throw validationError(fieldMessage(['email'], 'must be a bare address, without a display name'));
  }
  return parsed.address;
}

async function propertyValues(
  teamId: string,
  input: PropertyInput | undefined,
  ports: ContactPorts,
): Promise<ReturnType<typeof resolvePropertyValues>> {
  if (!input || Object.keys(input).length === 0) return {};
  return resolvePropertyValues(input, await ports.properties.all(teamId));
}

export async function createContact(
  cmd: { teamId: string; input: CreateContactInput },
  ports: ContactPorts,
): Promise<{ id: string }> {
  const { input, teamId } = cmd;
  const email = contactEmail(input.email);
  const values = await propertyValues(teamId, input.properties, ports);
  const properties = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null)) as Record<
    string,
    string | number
  >;
  const listed = input.segments ?? [];
  const segments =
    input.audience_id && !listed.includes(input.audience_id) ? [...listed, input.audience_id] : listed;
  const res = await ports.contacts.create(teamId, {
    email,
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    unsubscribed: input.unsubscribed ?? false,
    properties,
    segments,
    topics: input.topics ?? [],
  });
  if (res.ok) return { id: res.id };
  if (res.reason === 'email_taken') throw validationError(EMAIL_TAKEN_MESSAGE);
  if (res.reason === 'no_topic')
    throw validationError(fieldMessage(['topics', res.index, 'id'], 'no such topic'));
  const path = res.index < listed.length ? ['segments', res.index, 'id'] : ['audience_id'];
  throw validationError(fieldMessage(path, 'no such segment'));
}

export async function updateContact(
  cmd: { teamId: string; idOrEmail: string; input: UpdateContactInput },
  ports: ContactPorts,
): Promise<{ id: string }> {
  const { input, teamId, idOrEmail } = cmd;
  if (input.email !== undefined) {
    const current = await ports.contacts.get(teamId, idOrEmail);
    if (!current) throw notFound('Contact');
    if (mailboxKey(input.email.trim()) !== mailboxKey(current.email)) {
      throw validationError(fieldMessage(['email'], "a contact's email cannot be changed"));
    }
  }
  const patch: ContactPatch = {};
  if (input.first_name !== undefined) patch.first_name = input.first_name;
  if (input.last_name !== undefined) patch.last_name = input.last_name;
  if (input.unsubscribed !== undefined) patch.unsubscribed = input.unsubscribed;
  if (input.properties !== undefined)
    patch.properties = await propertyValues(teamId, input.properties, ports);
  const res = await ports.contacts.update(teamId, idOrEmail, patch);
  if (!res) throw notFound('Contact');
  return res;
}

export async function updateContactTopics(
  cmd: { teamId: string; idOrEmail: string; input: UpdateContactTopicsInput },
  ports: Pick<ContactPorts, 'contacts'>,
): Promise<{ id: string }> {
  const res = await ports.contacts.setTopics(cmd.teamId, cmd.idOrEmail, cmd.input.topics);
  if (res.ok) return { id: res.id };
  if (res.reason === 'not_found') throw notFound('Contact');
  throw validationError(fieldMessage(['topics', res.index, 'id'], 'no such topic'));
}

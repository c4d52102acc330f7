/**
 * Use-cases of /contact-properties: create (a team-unique, case-sensitive key; a fallback of the
 * declared type) and update (the fallback only: key and type never change, so values stored
 * under the property stay of its type).
 */
import { fieldMessage, notFound, validationError, type ContactPropertyValue } from '@petrel/contracts';
import { propertyValueProblem } from './property-values.js';
import type { ContactPropertiesPort } from './ports.js';
import type { CreateContactPropertyInput, UpdateContactPropertyInput } from './schemas.js';

function checkFallback(type: 'string' | 'number', fallback: ContactPropertyValue | null | undefined): void {
  if (fallback === undefined || fallback === null) return;
  const problem = propertyValueProblem(type, fallback);
  if (problem) throw validationError(fieldMessage(['fallback_value'], problem));
}

export async function createContactProperty(
  cmd: { teamId: string; input: CreateContactPropertyInput },
  ports: { properties: ContactPropertiesPort },
): Promise<{ id: string }> {
  const { input } = cmd;
  checkFallback(input.type, input.fallback_value);
  const res = await ports.properties.create(cmd.teamId, {
    key: input.key,
    type: input.type,
    fallback_value: input.fallback_value ?? null,
  });
  if (!res.ok)
    throw validationError(fieldMessage(['key'], 'a contact property with this key already exists'));
  return { id: res.id };
}

export async function updateContactProperty(
  cmd: { teamId: string; id: string; input: UpdateContactPropertyInput },
  ports: { properties: ContactPropertiesPort },
): Promise<{ id: string }> {
  const current = await ports.properties.get(cmd.teamId, cmd.id);
  if (!current) throw notFound('Contact property');
  const fallback = cmd.input.fallback_value;
  if (fallback === undefined) return { id: current.id };
  checkFallback(current.type, fallback);
  if (!(await ports.properties.setFallback(cmd.teamId, current.id, fallback)))
    throw notFound('Contact property');
  return { id: current.id };
}

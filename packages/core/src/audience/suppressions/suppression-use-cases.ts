/**
 * Use-cases of the suppression list's API (Resend's suppressions endpoints): what a client adds
 * is a `manual` entry without a source; removals of unknown entries are a 404 one at a time and
 * a `deleted: false` in a batch. Bounces and complaints add their entries through
 * {@link SuppressionsWriter} from the sending pipeline, not here.
 */
import type {
  AddSuppressionInput,
  AddSuppressionsInput,
  RemoveSuppressionsInput,
} from './suppression-schemas.js';
import type { SuppressionsPort } from './suppressions-port.js';
import { foundId } from '../../kernel/found.js';

export async function addSuppression(
  cmd: { teamId: string; input: AddSuppressionInput },
  ports: { suppressions: SuppressionsPort },
): Promise<{ id: string }> {
  const { record } = await ports.suppressions.add(cmd.teamId, cmd.input.email, 'manual', null);
  return { id: record.id };
}

export async function addSuppressions(
  cmd: { teamId: string; input: AddSuppressionsInput },
  ports: { suppressions: SuppressionsPort },
): Promise<{ ids: string[] }> {
  const added = await ports.suppressions.addMany(cmd.teamId, cmd.input.emails, 'manual', null);
  return { ids: added.map((a) => a.id) };
}

export async function removeSuppression(
  cmd: { teamId: string; idOrEmail: string },
  ports: { suppressions: SuppressionsPort },
): Promise<{ id: string }> {
  return foundId(ports.suppressions.remove(cmd.teamId, cmd.idOrEmail), 'Suppression');
}

export async function removeSuppressions(
  cmd: { teamId: string; input: RemoveSuppressionsInput },
  ports: { suppressions: SuppressionsPort },
): Promise<{ id: string; deleted: boolean }[]> {
  const { emails, ids } = cmd.input;
  return ports.suppressions.removeMany(cmd.teamId, emails ? { emails } : { ids: ids ?? [] });
}

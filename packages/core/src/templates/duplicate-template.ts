/**
 * Use-case: duplicate a template (POST /templates/:idOrAlias/duplicate): a new
 * draft with the current content, named "<name> (copy)", without alias (aliases are unique).
 */
import { notFound } from '@petrel/contracts';
import type { TemplatesPort } from './templates-port.js';

export async function duplicateTemplate(
  cmd: { teamId: string; idOrAlias: string },
  ports: { templates: TemplatesPort },
): Promise<{ id: string }> {
  const id = await ports.templates.duplicate(cmd.teamId, cmd.idOrAlias);
  if (!id) throw notFound('Template');
  return { id };
}

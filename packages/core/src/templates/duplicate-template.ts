/**
 * Use-case: duplicate a template (POST /templates/:idOrAlias/duplicate): a new
 * draft with the current content, named "<name> (copy)", without alias (aliases are unique).
 */
import { found } from '../kernel/found.js';
import type { TemplatesPort } from './templates-port.js';

export async function duplicateTemplate(
  cmd: { teamId: string; idOrAlias: string },
  ports: { templates: TemplatesPort },
): Promise<{ id: string }> {
  return { id: await found(ports.templates.duplicate(cmd.teamId, cmd.idOrAlias), 'Template') };
}

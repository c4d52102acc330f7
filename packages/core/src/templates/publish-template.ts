/**
 * Use-case: publish a template (POST /templates/:idOrAlias/publish). Its current
 * version becomes the one sends use. Refused while the template uses a variable it does not
 * declare: a send could never give it a value or a declared fallback.
 *
 * The check and the publish are separate steps, so the store publishes only the version that
 * was checked (`expectedVersionId`); after a concurrent edit the use-case re-reads and re-checks.
 */
import { PetrelError, notFound, validationError } from '@petrel/contracts';
import { parseTemplate } from './parse-template.js';
import type { CurrentTemplate, TemplatesPort } from './templates-port.js';
import { undeclaredVariables } from './undeclared-variables.js';

/** Re-checks after a concurrent edit before giving up with a 409. */
export const PUBLISH_ATTEMPTS = 5;

/** Throws a 422 naming the undeclared variables of the current version. */
function checkDeclared({ version }: CurrentTemplate): void {
  const parts = [version.subject, version.html, version.text].map((s) =>
    s === null ? undefined : parseTemplate(s),
  );
  const undeclared = undeclaredVariables(parts, version.variables);
  if (undeclared.length > 0) {
    throw validationError(
      `variables: the template uses ${undeclared.join(', ')} without declaring ${undeclared.length > 1 ? 'them' : 'it'}; declare every variable before publishing`,
    );
  }
}

export async function publishTemplate(
  cmd: { teamId: string; idOrAlias: string },
  ports: { templates: TemplatesPort },
): Promise<{ id: string; versionId: string }> {
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
    const found = await ports.templates.get(cmd.teamId, cmd.idOrAlias);
    if (!found) throw notFound('Template');
    checkDeclared(found);
    const { id, current_version_id } = found.template;
    const published = await ports.templates.publish(cmd.teamId, id, current_version_id);
    if (published.ok) return { id, versionId: published.versionId };
    if (published.reason === 'not_found') throw notFound('Template');
  }
  throw new PetrelError('conflict', 'The template is being edited concurrently; retry the publish');
}

/**
 * Use-cases: create a template (POST /templates) and update one (PATCH /templates/:idOrAlias),
 * as Resend's API defines them. The body has passed the wire schema; these add the rules that need more than
 * the schema: addresses a send would accept, and a team-unique alias.
 */
import { notFound, type CreateTemplateInput, type UpdateTemplateInput } from '@petrel/contracts';
import { aliasTaken, checkTemplateAddresses } from './template-addresses.js';
import type { TemplatesPort } from './templates-port.js';

export async function createTemplate(
  cmd: { teamId: string; input: CreateTemplateInput },
  ports: { templates: TemplatesPort },
): Promise<{ id: string }> {
  const { input } = cmd;
  checkTemplateAddresses(input);
  const created = await ports.templates.create(cmd.teamId, {
    name: input.name,
    alias: input.alias ?? null,
    from: input.from ?? null,
    subject: input.subject ?? null,
    reply_to: input.reply_to ?? null,
    html: input.html,
    text: input.text ?? null,
    variables: input.variables ?? [],
  });
  if (!created.ok) throw aliasTaken(input.alias);
  return { id: created.id };
}

export async function updateTemplate(
  cmd: { teamId: string; idOrAlias: string; patch: UpdateTemplateInput },
  ports: { templates: TemplatesPort },
): Promise<{ id: string }> {
  checkTemplateAddresses(cmd.patch);
  const updated = await ports.templates.update(cmd.teamId, cmd.idOrAlias, cmd.patch);
  if (!updated.ok) throw updated.reason === 'not_found' ? notFound('Template') : aliasTaken(cmd.patch.alias);
  return { id: updated.id };
}

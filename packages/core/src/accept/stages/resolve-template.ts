/**
 * Acceptance stage for sends from a template: resolves the
 * template (id or alias) to its published version, applies the template's from / subject /
 * reply_to defaults where the request gives none, and refuses — before anything is written — an
 * email that names an unknown or unpublished template, lacks from or subject after the merge,
 * gives a string to a number variable, leaves a used variable without value or fallback, or
 * would put a line break into the subject.
 *
 * The accepted email pins the published version it was checked against (`template.versionId`),
 * so the worker renders exactly that version even if the template is published again later. The
 * subject is rendered here (it is one header line and the record should show it); html and text
 * are rendered by the worker.
 */
import type { EmailContent } from '@petrel/contracts';
import {
  checkSubjectValues,
  findMissingVariables,
  renderTemplate,
  type DeclaredVariable,
  type TemplateValues,
} from '../../templates/render-template.js';
import type { PublishedTemplate, TemplateLookup } from '../ports.js';
import { fieldPrefix, refuse, type AcceptStage } from './stage.js';

/** `template.variables.KEY`, or `template.variables["1KEY"]` when the key is not identifier-like. */
function variablePath(p: string, key: string): string {
  return /^[A-Za-z_]\w*$/.test(key)
    ? `${p}template.variables.${key}`
    : `${p}template.variables[${JSON.stringify(key)}]`;
}

/** A value that does not fit the declared type: a number variable accepts only numbers. */
function typeMismatch(
  values: TemplateValues,
  declared: readonly DeclaredVariable[],
): DeclaredVariable | undefined {
  return declared.find(
    (d) => d.type === 'number' && Object.hasOwn(values, d.key) && typeof values[d.key] !== 'number',
  );
}

/**
 * Lookups of one template by concurrent emails share a single read (a batch of 100 emails from
 * one alias reads it once); nothing is kept once the read settles — the store caches only the
 * compiled, immutable published versions.
 */
function sharedLookup(templates: TemplateLookup): TemplateLookup['getPublished'] {
  const inFlight = new Map<string, Promise<PublishedTemplate>>();
  return (teamId, idOrAlias) => {
    const key = `${teamId}\n${idOrAlias}`;
    let p = inFlight.get(key);
    if (!p) {
      p = templates.getPublished(teamId, idOrAlias).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
    }
    return p;
  };
}

export function resolveTemplate(templates: TemplateLookup): AcceptStage {
  const lookup = sharedLookup(templates);
  return async (email, ctx) => {
    const ref = email.template;
    if (!ref) return { email };
    const p = fieldPrefix(ctx);
    const found = await lookup(ctx.teamId, ref.id);
    if (!found.ok) {
      const why = found.reason === 'not_found' ? 'not found' : 'is not published (publish it before sending)';
      return refuse(`${p}template.id: template '${ref.id}' ${why}`);
    }
    const { template, compiled } = found;
    const v = compiled.version;
    const declared = v.variables;
    const values = ref.variables;

    const from = email.from || v.from || '';
    if (!from) return refuse(`${p}from: is required (neither the request nor the template gives one)`);
    const subjectFromTemplate = !email.subject && Boolean(v.subject);
    if (!email.subject && !subjectFromTemplate) {
      return refuse(`${p}subject: is required (neither the request nor the template gives one)`);
    }

    const wrongType = typeMismatch(values, declared);
    if (wrongType) {
      return refuse(
        `${variablePath(p, wrongType.key)}: must be a number (the template declares it as number)`,
      );
    }
    const subjectTemplate = subjectFromTemplate ? compiled.subject : undefined;
    const missing = findMissingVariables([subjectTemplate, compiled.html, compiled.text], values, declared);
    if (missing.length > 0) {
      return refuse(
        `${p}template.variables: missing value for ${missing.join(', ')} (the template uses them and declares no fallback)`,
      );
    }
    const unsafe = checkSubjectValues(subjectTemplate, values, declared);
    if (unsafe.length > 0) {
      return refuse(
        `${variablePath(p, unsafe[0]!)}: must not contain line breaks or control characters (it is used in the subject)`,
      );
    }

    let subject = email.subject;
    if (subjectTemplate) {
      const rendered = renderTemplate({ subject: subjectTemplate }, values, declared);
      if (!rendered.ok)
        return refuse(`${p}template.variables: missing value for ${rendered.missing.join(', ')}`);
      subject = rendered.subject ?? '';
    }
    const merged: EmailContent = {
      ...email,
      from,
      subject,
      reply_to: email.reply_to.length > 0 ? email.reply_to : (v.reply_to ?? []),
    };
    return { email: merged, template: { id: template.id, versionId: v.id } };
  };
}

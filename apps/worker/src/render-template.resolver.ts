/**
 * Content resolver for emails sent from a template: renders the html and text of the version the
 * email pinned at acceptance, with the email's variables and the version's declared fallbacks.
 * Subject, from and reply_to were settled at acceptance and are on the record already.
 *
 * Text part: the template's text rendered when the template has one (`''` keeps the text part
 * off), otherwise none, so the mailer generates it from the html as for a plain send.
 *
 * Compiled versions are cached by the store (versions are immutable once published), so a
 * broadcast or a burst from one template parses it once and only fills values per email.
 */
import { renderTemplate } from '@petrel/core';
import type { TemplatesStore } from '@petrel/store';
import type { ContentResolver } from './deliver-email.processor.js';

export function renderTemplateResolver(templates: TemplatesStore): ContentResolver {
  return async (record) => {
    const content = { ...record.content, attachments: [] };
    if (!record.template || !content.template) return content;
    const { id, versionId } = record.template;
    const compiled = await templates.getCompiledVersion(record.teamId, id, versionId);
    if (!compiled) return { error: `template ${id} version ${versionId} no longer exists` };
    const rendered = renderTemplate(
      { html: compiled.html, ...(compiled.text ? { text: compiled.text } : {}) },
      content.template.variables,
      compiled.version.variables,
    );
    if (!rendered.ok) return { error: `template variables without value: ${rendered.missing.join(', ')}` };
    const { text: _text, ...rest } = content;
    return {
      ...rest,
      html: rendered.html ?? '',
      ...(rendered.text !== undefined ? { text: rendered.text } : {}),
    };
  };
}

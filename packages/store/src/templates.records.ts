/**
 * The shapes of the templates store and the pure steps between them and the Redis hashes:
 * encoding a version as hash fields (absent field = null), decoding records, merging a partial
 * update into the current content, and keeping declared variables' ids across updates.
 */
import type { TemplateContent, TemplateVariableRecord } from '@petrel/contracts';
import { newId, type CompiledTemplate, type TemplateVariableDeclaration } from '@petrel/core';

export type { TemplateContent };

/** One stored version. */
export interface TemplateVersion extends TemplateContent {
  id: string;
  templateId: string;
  created_at: string;
}

/** The template record without its content. */
export interface TemplateMeta {
  id: string;
  name: string;
  alias: string | null;
  created_at: string;
  updated_at: string;
  current_version_id: string;
  published_version_id: string | null;
  published_at: string | null;
}

/** A version compiled for rendering (see `getCompiledVersion`). */
export interface CompiledTemplateVersion {
  version: TemplateVersion;
  subject: CompiledTemplate | undefined;
  html: CompiledTemplate;
  text: CompiledTemplate | undefined;
}

/**
 * A partial update. An absent (undefined) key keeps the stored value; `null` clears an optional
 * field; `variables` replaces the whole list.
 */
export interface TemplatePatch {
  name?: string | undefined;
  alias?: string | null | undefined;
  from?: string | null | undefined;
  subject?: string | null | undefined;
  reply_to?: string[] | null | undefined;
  html?: string | undefined;
  text?: string | null | undefined;
  variables?: TemplateVariableDeclaration[] | null | undefined;
}

export type CreateTemplateResult =
  { ok: true; id: string; versionId: string } | { ok: false; reason: 'alias_taken' };
export type UpdateTemplateResult =
  | { ok: true; id: string; versionId: string; version: 'new' | 'unchanged' }
  | { ok: false; reason: 'not_found' | 'alias_taken' };
export type PublishTemplateResult =
  { ok: true; versionId: string } | { ok: false; reason: 'not_found' | 'changed' };
export type PublishedTemplateResult =
  | { ok: true; template: TemplateMeta; compiled: CompiledTemplateVersion }
  | { ok: false; reason: 'not_found' | 'not_published' };

/** `{ a: '1', b: '2' }` → `['a', '1', 'b', '2']` */
export function pairs(fields: Record<string, string>): string[] {
  return Object.entries(fields).flat();
}

/** Hash field-value pairs of a version; `null` fields are left out (absent = null). */
export function versionPairs(c: TemplateContent, createdAt: string): string[] {
  const out = ['html', c.html, 'variables', JSON.stringify(c.variables), 'created_at', createdAt];
  if (c.from !== null) out.push('from', c.from);
  if (c.subject !== null) out.push('subject', c.subject);
  if (c.reply_to !== null) out.push('reply_to', JSON.stringify(c.reply_to));
  if (c.text !== null) out.push('text', c.text);
  return out;
}

/**
 * Stored variable records for a declared list. A key that was declared before keeps its id and
 * created_at; updated_at moves when its type or fallback changed.
 */
export function variableRecords(
  input: readonly TemplateVariableDeclaration[],
  previous: readonly TemplateVariableRecord[],
  now: string,
): TemplateVariableRecord[] {
  const before = new Map(previous.map((v) => [v.key, v]));
  return input.map((v) => {
    const fallback = v.fallback_value ?? null;
    const old = before.get(v.key);
    if (old) {
      const same = old.type === v.type && old.fallback_value === fallback;
      return { ...old, type: v.type, fallback_value: fallback, updated_at: same ? old.updated_at : now };
    }
    return {
      id: newId(),
      key: v.key,
      type: v.type,
      fallback_value: fallback,
      created_at: now,
      updated_at: now,
    };
  });
}

export function mergeContent(current: TemplateContent, patch: TemplatePatch, now: string): TemplateContent {
  const pick = <T>(next: T | undefined, old: T): T => (next === undefined ? old : next);
  return {
    from: pick(patch.from, current.from),
    subject: pick(patch.subject, current.subject),
    reply_to: pick(patch.reply_to, current.reply_to),
    html: pick(patch.html, current.html),
    text: pick(patch.text, current.text),
    variables:
      patch.variables === undefined
        ? current.variables
        : variableRecords(patch.variables ?? [], current.variables, now),
  };
}

export function toMeta(r: Record<string, string>): TemplateMeta {
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    alias: r.alias || null,
    created_at: r.created_at ?? '',
    updated_at: r.updated_at ?? '',
    current_version_id: r.current_version_id ?? '',
    published_version_id: r.published_version_id || null,
    published_at: r.published_at || null,
  };
}

export function toVersion(r: Record<string, string>, templateId: string): TemplateVersion {
  return {
    id: r.id ?? '',
    templateId,
    created_at: r.created_at ?? '',
    from: r.from ?? null,
    subject: r.subject ?? null,
    reply_to: r.reply_to === undefined ? null : (JSON.parse(r.reply_to) as string[]),
    html: r.html ?? '',
    text: r.text ?? null,
    variables: r.variables ? (JSON.parse(r.variables) as TemplateVariableRecord[]) : [],
  };
}

/**
 * In-memory templates for unit tests of the template use-cases (TemplatesPort) and of the
 * acceptance stages (TemplateLookup): the same id-or-alias resolution, team-unique aliases,
 * current and published versions, and optimistic publish (`changed` when the current version is
 * no longer the one expected) as the Redis store (../contracts/templates.contract.ts holds both
 * to it). As in the store, every update that changes the content makes a new current version,
 * and one that changes no content (core's sameTemplateContent) keeps it.
 */
import {
  newId,
  parseTemplate,
  sameTemplateContent,
  type CurrentTemplate,
  type NewTemplateContent,
  type PublishedTemplate,
  type TemplateContentPatch,
  type TemplateLookup,
  type TemplatesPort,
} from '@petrel/core';

interface StoredVersion {
  id: string;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: { key: string; type: 'string' | 'number'; fallback_value: string | number | null }[];
}

interface StoredTemplate {
  id: string;
  teamId: string;
  name: string;
  alias: string | null;
  current_version_id: string;
  published_version_id: string | null;
  versions: Map<string, StoredVersion>;
}

export class MemoryTemplates implements TemplatesPort, TemplateLookup {
  readonly templates = new Map<string, StoredTemplate>();
  /** Every call by method name, in order (e.g. to assert one read per batch). */
  readonly calls: { method: string; idOrAlias: string }[] = [];
  /** Runs before each publish (a test edits the template here to simulate a concurrent edit). */
  beforePublish?: (templateId: string) => void;
  /** Template and version ids are UUIDv7, as the store's; a template id matches in any case. */
  private find(teamId: string, idOrAlias: string): StoredTemplate | undefined {
    const byId = this.templates.get(idOrAlias.toLowerCase());
    if (byId?.teamId === teamId) return byId;
    return [...this.templates.values()].find((t) => t.teamId === teamId && t.alias === idOrAlias);
  }

  private aliasTaken(teamId: string, alias: string | null | undefined, except?: string): boolean {
    if (!alias) return false;
    return [...this.templates.values()].some(
      (t) => t.teamId === teamId && t.alias === alias && t.id !== except,
    );
  }

  private version(content: Omit<NewTemplateContent, 'name' | 'alias'>): StoredVersion {
    return {
      id: newId(),
      from: content.from,
      subject: content.subject,
      reply_to: content.reply_to,
      html: content.html,
      text: content.text,
      variables: content.variables.map((v) => ({
        key: v.key,
        type: v.type,
        fallback_value: v.fallback_value ?? null,
      })),
    };
  }

  private current(t: StoredTemplate): StoredVersion {
    return t.versions.get(t.current_version_id)!;
  }

  async create(teamId: string, input: NewTemplateContent) {
    if (this.aliasTaken(teamId, input.alias)) return { ok: false as const, reason: 'alias_taken' as const };
    const v = this.version(input);
    const id = newId();
    this.templates.set(id, {
      id,
      teamId,
      name: input.name,
      alias: input.alias,
      current_version_id: v.id,
      published_version_id: null,
      versions: new Map([[v.id, v]]),
    });
    return { ok: true as const, id };
  }

  async update(teamId: string, idOrAlias: string, patch: TemplateContentPatch) {
    const t = this.find(teamId, idOrAlias);
    if (!t) return { ok: false as const, reason: 'not_found' as const };
    if (patch.alias !== undefined && this.aliasTaken(teamId, patch.alias, t.id)) {
      return { ok: false as const, reason: 'alias_taken' as const };
    }
    const cur = this.current(t);
    const keep = <T>(next: T | undefined, current: T): T => (next === undefined ? current : next);
    const v = this.version({
      from: keep(patch.from, cur.from),
      subject: keep(patch.subject, cur.subject),
      reply_to: keep(patch.reply_to, cur.reply_to),
      html: patch.html ?? cur.html,
      text: keep(patch.text, cur.text),
      variables: patch.variables === undefined ? cur.variables : (patch.variables ?? []),
    });
    if (!sameTemplateContent(cur, v)) {
      t.versions.set(v.id, v);
      t.current_version_id = v.id;
    }
    if (patch.name) t.name = patch.name;
    if (patch.alias !== undefined) t.alias = patch.alias;
    return { ok: true as const, id: t.id };
  }

  async get(teamId: string, idOrAlias: string): Promise<CurrentTemplate | null> {
    this.calls.push({ method: 'get', idOrAlias });
    const t = this.find(teamId, idOrAlias);
    return t
      ? { template: { id: t.id, current_version_id: t.current_version_id }, version: this.current(t) }
      : null;
  }

  async publish(teamId: string, templateId: string, expectedVersionId: string) {
    this.calls.push({ method: 'publish', idOrAlias: templateId });
    this.beforePublish?.(templateId);
    const t = this.find(teamId, templateId);
    if (!t) return { ok: false as const, reason: 'not_found' as const };
    if (t.current_version_id !== expectedVersionId) return { ok: false as const, reason: 'changed' as const };
    t.published_version_id = expectedVersionId;
    return { ok: true as const, versionId: expectedVersionId };
  }

  async duplicate(teamId: string, idOrAlias: string): Promise<string | null> {
    const t = this.find(teamId, idOrAlias);
    if (!t) return null;
    const created = await this.create(teamId, { ...this.current(t), name: `${t.name} (copy)`, alias: null });
    return created.ok ? created.id : null;
  }

  async getPublished(teamId: string, idOrAlias: string): Promise<PublishedTemplate> {
    this.calls.push({ method: 'getPublished', idOrAlias });
    const t = this.find(teamId, idOrAlias);
    if (!t) return { ok: false, reason: 'not_found' };
    const v = t.published_version_id ? t.versions.get(t.published_version_id) : undefined;
    if (!v) return { ok: false, reason: 'not_published' };
    return {
      ok: true,
      template: { id: t.id },
      compiled: {
        version: v,
        subject: v.subject === null ? undefined : parseTemplate(v.subject),
        html: parseTemplate(v.html),
        text: v.text === null ? undefined : parseTemplate(v.text),
      },
    };
  }

  /** Test setup: a template created and published in one step; returns its id. */
  async addPublished(
    teamId: string,
    content: Partial<NewTemplateContent> & { html: string },
  ): Promise<{ id: string; versionId: string }> {
    const created = await this.create(teamId, {
      name: 'template',
      alias: null,
      from: null,
      subject: null,
      reply_to: null,
      text: null,
      variables: [],
      ...content,
    });
    if (!created.ok) throw new Error(`alias ${content.alias ?? ''} is taken`);
    const t = this.templates.get(created.id)!;
    t.published_version_id = t.current_version_id;
    return { id: t.id, versionId: t.current_version_id };
  }
}

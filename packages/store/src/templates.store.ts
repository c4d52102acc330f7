/**
 * Templates: one hash per template, immutable version hashes, a per-team alias index and a
 * creation-time listing.
 *
 * Layout (see keys.ts): `template:<id>` holds the metadata (name, alias, timestamps,
 * `current_version_id` = the latest version, `published_version_id`, `rev`, `versions`);
 * `template:<id>:version:<vid>` holds one version's content (from, subject, reply_to, html, text,
 * variables). A field that is absent from a version hash is `null`.
 *
 * Versioning: a version hash is never written again, so a version id names the same content for
 * as long as it exists (accepted emails pin published ones, the compiled cache below relies on
 * it, and core's publishTemplate publishes the version id it checked: an edit between its check
 * and its publish must change the id, or the publish would go out unchecked). Every edit of the
 * content writes a new version and makes it current (`has_unpublished_versions`); an edit of a
 * draft that was never published also deletes that draft (no email can have pinned it). An
 * update that changes no content (a rename, an alias) keeps the current version. Publishing
 * promotes the current version.
 *
 * Every write is one Lua script guarded by the template's `rev` counter (optimistic concurrency:
 * read, compute, write-if-unchanged, retry), and alias uniqueness is decided inside the same
 * script, so two concurrent creates with one alias cannot both win.
 *
 * Deletion removes the template, its listing entry and its alias at once, but its versions only
 * expire after `versionTtlMs` (the email retention): an email accepted before the deletion still
 * renders from the version it pinned.
 */
import type { RedisClient } from './redis.js';
import { LRUCache } from 'lru-cache';
import { UUID_RE, newId, parseTemplate, sameTemplateContent, type NewTemplateContent } from '@petrel/core';
import { Keys } from './keys.js';
import { pageHashes } from './hash-records.js';
import {
  mergeContent,
  pairs,
  toMeta,
  toVersion,
  variableRecords,
  versionPairs,
  type CompiledTemplateVersion,
  type CreateTemplateResult,
  type PublishTemplateResult,
  type PublishedTemplateResult,
  type TemplateMeta,
  type TemplatePatch,
  type TemplateVersion,
  type UpdateTemplateResult,
} from './templates.records.js';
import { defineScripts, type StoreCommands } from './scripts.js';

export type {
  CompiledTemplateVersion,
  CreateTemplateResult,
  PublishTemplateResult,
  PublishedTemplateResult,
  TemplateContent,
  TemplateMeta,
  TemplatePatch,
  TemplateVersion,
  UpdateTemplateResult,
} from './templates.records.js';

/** Optimistic-concurrency retries before a write gives up (only under heavy contention). */
const MAX_WRITE_ATTEMPTS = 8;

/** Bounds of the compiled-version cache: entries, and total characters of the sources. */
const COMPILED_CACHE_LIMITS = { entries: 1_000, chars: 32 * 1024 * 1024 } as const;

export class TemplatesStore {
  private readonly redis: RedisClient & StoreCommands;
  /**
   * Compiled published versions by team, template and version id (published versions never
   * change). A version over a sixteenth of the budget is not kept: one huge template must not
   * evict every other.
   */
  private readonly compiled = new LRUCache<string, CompiledTemplateVersion>({
    max: COMPILED_CACHE_LIMITS.entries,
    maxSize: COMPILED_CACHE_LIMITS.chars,
    maxEntrySize: COMPILED_CACHE_LIMITS.chars / 16,
    sizeCalculation: compiledCost,
  });

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    /** How long the versions of a deleted template stay readable (the email retention). */
    private readonly versionTtlMs: number,
    private readonly clock: { now(): number } = Date,
  ) {
    this.redis = defineScripts(redis);
  }

  /** The template id for an id or an alias (aliases never have the shape of an id). */
  async resolveId(teamId: string, idOrAlias: string): Promise<string | null> {
    if (UUID_RE.test(idOrAlias)) return idOrAlias.toLowerCase();
    return this.redis.hget(this.keys.templateAliases(teamId), idOrAlias);
  }

  async getMeta(teamId: string, templateId: string): Promise<TemplateMeta | null> {
    const r = await this.redis.hgetall(this.keys.template(teamId, templateId));
    return r.id ? toMeta(r) : null;
  }

  async getVersion(teamId: string, templateId: string, versionId: string): Promise<TemplateVersion | null> {
    const r = await this.redis.hgetall(this.keys.templateVersion(teamId, templateId, versionId));
    return r.id ? toVersion(r, templateId) : null;
  }

  /** The template and its current (latest) version, by id or alias. */
  async get(
    teamId: string,
    idOrAlias: string,
  ): Promise<{ template: TemplateMeta; version: TemplateVersion } | null> {
    const id = await this.resolveId(teamId, idOrAlias);
    if (!id) return null;
    const meta = await this.getMeta(teamId, id);
    if (!meta) return null;
    const version = await this.getVersion(teamId, id, meta.current_version_id);
    return version ? { template: meta, version } : null;
  }

  /**
   * A published version compiled for rendering, cached by version id. Call it only with a
   * version id that was published (the published one, or one an email pinned): those never
   * change, drafts may. Returns null when the version is gone.
   */
  async getCompiledVersion(
    teamId: string,
    templateId: string,
    versionId: string,
  ): Promise<CompiledTemplateVersion | null> {
    const cacheKey = `${teamId}:${templateId}:${versionId}`;
    const hit = this.compiled.get(cacheKey);
    if (hit) return hit;
    const version = await this.getVersion(teamId, templateId, versionId);
    if (!version) return null;
    const compiled: CompiledTemplateVersion = {
      version,
      subject: version.subject === null ? undefined : parseTemplate(version.subject),
      html: parseTemplate(version.html),
      text: version.text === null ? undefined : parseTemplate(version.text),
    };
    this.compiled.set(cacheKey, compiled);
    return compiled;
  }

  /** The published version of a template (id or alias), for sending. */
  async getPublished(teamId: string, idOrAlias: string): Promise<PublishedTemplateResult> {
    const id = await this.resolveId(teamId, idOrAlias);
    if (!id) return { ok: false, reason: 'not_found' };
    const meta = await this.getMeta(teamId, id);
    if (!meta) return { ok: false, reason: 'not_found' };
    if (!meta.published_version_id) return { ok: false, reason: 'not_published' };
    const compiled = await this.getCompiledVersion(teamId, id, meta.published_version_id);
    if (!compiled) return { ok: false, reason: 'not_found' };
    return { ok: true, template: meta, compiled };
  }

  /** Newest first. `after` pages towards older templates, `before` towards newer ones; null = unknown cursor. */
  async list(
    teamId: string,
    opts: { limit: number; after?: string; before?: string },
  ): Promise<{ items: TemplateMeta[]; hasMore: boolean } | null> {
    const keyOf = (id: string) => this.keys.template(teamId, id);
    return pageHashes(this.redis, 'TemplatesStore.list', this.keys.templates(teamId), opts, keyOf, toMeta);
  }

  async create(teamId: string, input: NewTemplateContent): Promise<CreateTemplateResult> {
    const nowMs = this.clock.now();
    const id = newId(nowMs);
    const versionId = newId(nowMs);
    const iso = new Date(nowMs).toISOString();
    const templateFields = pairs({
      id,
      name: input.name,
      alias: input.alias ?? '',
      created_at: iso,
      updated_at: iso,
      current_version_id: versionId,
      rev: '0',
      versions: versionId,
    });
    const versionFields = [
      'id',
      versionId,
      ...versionPairs({ ...input, variables: variableRecords(input.variables, [], iso) }, iso),
    ];
    const ok = await this.redis.petrelCreateTemplate(
      this.keys.template(teamId, id),
      this.keys.templateVersion(teamId, id, versionId),
      this.keys.templates(teamId),
      this.keys.templateAliases(teamId),
      id,
      input.alias ?? '',
      nowMs,
      templateFields.length,
      ...templateFields,
      ...versionFields,
    );
    return ok === 1 ? { ok: true, id, versionId } : { ok: false, reason: 'alias_taken' };
  }

  /** Apply `patch` (see TemplatePatch) to the template `idOrAlias`. */
  async update(teamId: string, idOrAlias: string, patch: TemplatePatch): Promise<UpdateTemplateResult> {
    const id = await this.resolveId(teamId, idOrAlias);
    if (!id) return { ok: false, reason: 'not_found' };
    const key = this.keys.template(teamId, id);
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const raw = await this.redis.hgetall(key);
      if (!raw.id) return { ok: false, reason: 'not_found' };
      const meta = toMeta(raw);
      const current = await this.getVersion(teamId, id, meta.current_version_id);
      if (!current) {
        // A concurrent edit between the two reads replaced that draft version (and deleted it,
        // never published): read again. Only an unchanged template without it is not found.
        if ((await this.redis.hget(key, 'rev')) !== (raw.rev ?? null)) continue;
        return { ok: false, reason: 'not_found' };
      }
      const nowMs = this.clock.now();
      const iso = new Date(nowMs).toISOString();
      const next = mergeContent(current, patch, iso);
      const changed = !sameTemplateContent(current, next);
      const newVersionId = newId(nowMs);
      const templateFields = pairs({
        updated_at: iso,
        ...(patch.name !== undefined ? { name: patch.name } : {}),
      });
      const versionFields = changed ? versionPairs(next, iso) : [];
      const res = await this.redis.petrelUpdateTemplate(
        key,
        this.keys.templateAliases(teamId),
        this.keys.templateVersion(teamId, id, meta.current_version_id),
        this.keys.templateVersion(teamId, id, newVersionId),
        id,
        raw.rev ?? '0',
        patch.alias === undefined ? 'keep' : 'set',
        patch.alias ?? '',
        newVersionId,
        templateFields.length,
        versionFields.length,
        ...templateFields,
        ...versionFields,
      );
      if (res === 'retry') continue;
      if (res === 'missing') return { ok: false, reason: 'not_found' };
      if (res === 'alias_taken') return { ok: false, reason: 'alias_taken' };
      const version = res as 'new' | 'unchanged';
      return { ok: true, id, versionId: version === 'new' ? newVersionId : meta.current_version_id, version };
    }
    throw new Error(`template ${id}: too many concurrent updates`);
  }

  /**
   * Make `expectedVersionId` the published version, if it is still the current one.
   * `changed` means the template was edited since the caller read it (re-check and retry).
   */
  async publish(
    teamId: string,
    templateId: string,
    expectedVersionId: string,
  ): Promise<PublishTemplateResult> {
    const res = await this.redis.petrelPublishTemplate(
      this.keys.template(teamId, templateId),
      expectedVersionId,
      new Date(this.clock.now()).toISOString(),
    );
    if (res === -1) return { ok: false, reason: 'not_found' };
    if (res === 0) return { ok: false, reason: 'changed' };
    return { ok: true, versionId: expectedVersionId };
  }

  /** Delete a template; returns its id, or null when there is none. Versions expire later (see header). */
  async remove(teamId: string, idOrAlias: string): Promise<string | null> {
    const id = await this.resolveId(teamId, idOrAlias);
    if (!id) return null;
    const key = this.keys.template(teamId, id);
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const [rev, versions] = await this.redis.hmget(key, 'rev', 'versions');
      if (!rev) return null;
      const versionKeys = (versions ?? '')
        .split(' ')
        .filter(Boolean)
        .map((v) => this.keys.templateVersion(teamId, id, v));
      const res = await this.redis.petrelDeleteTemplate(
        3 + versionKeys.length,
        key,
        this.keys.templateAliases(teamId),
        this.keys.templates(teamId),
        ...versionKeys,
        id,
        rev,
        this.versionTtlMs,
      );
      if (res === 1) return id;
      if (res === -1) return null;
    }
    throw new Error(`template ${id}: too many concurrent updates`);
  }

  /** A new draft template with the current content of `idOrAlias`, named "<name> (copy)", without alias. */
  async duplicate(teamId: string, idOrAlias: string): Promise<string | null> {
    const found = await this.get(teamId, idOrAlias);
    if (!found) return null;
    const { template, version } = found;
    const res = await this.create(teamId, {
      name: `${template.name} (copy)`,
      alias: null,
      from: version.from,
      subject: version.subject,
      reply_to: version.reply_to,
      html: version.html,
      text: version.text,
      variables: version.variables,
    });
    if (!res.ok) throw new Error('unreachable: a duplicate has no alias');
    return res.id;
  }
}

/** Cache cost of a compiled version: the characters of its sources (at least 1, as lru-cache needs). */
function compiledCost(c: CompiledTemplateVersion): number {
  const v = c.version;
  return 1 + v.html.length + (v.text?.length ?? 0) + (v.subject?.length ?? 0);
}

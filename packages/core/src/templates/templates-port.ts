/**
 * The port of the template use-cases (create, update, publish, duplicate). TemplatesStore
 * satisfies it; packages/testing has an in-memory version.
 */
import type { TemplateVariableType } from '@petrel/contracts';

/** A declared variable as a client gives it. */
export interface TemplateVariableDeclaration {
  key: string;
  type: TemplateVariableType;
  fallback_value?: string | number | null | undefined;
}

/** A new template as it is stored: every optional field resolved to a value or null. */
export interface NewTemplateContent {
  name: string;
  alias: string | null;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: TemplateVariableDeclaration[];
}

/** A partial update: an absent key keeps the stored value, null clears it. */
export type TemplateContentPatch = {
  [K in keyof NewTemplateContent]?: NewTemplateContent[K] | null | undefined;
};

/** What the use-cases read of a template and its current (latest) version. */
export interface CurrentTemplate {
  template: { id: string; current_version_id: string };
  version: {
    subject: string | null;
    html: string;
    text: string | null;
    variables: readonly { key: string }[];
  };
}

export interface TemplatesPort {
  /** The template and its current version, by id or alias. */
  get(teamId: string, idOrAlias: string): Promise<CurrentTemplate | null>;
  create(
    teamId: string,
    input: NewTemplateContent,
  ): Promise<{ ok: true; id: string } | { ok: false; reason: 'alias_taken' }>;
  update(
    teamId: string,
    idOrAlias: string,
    patch: TemplateContentPatch,
  ): Promise<{ ok: true; id: string } | { ok: false; reason: 'not_found' | 'alias_taken' }>;
  /** Publish `expectedVersionId` if it is still the current version (`changed` otherwise). */
  publish(
    teamId: string,
    templateId: string,
    expectedVersionId: string,
  ): Promise<{ ok: true; versionId: string } | { ok: false; reason: 'not_found' | 'changed' }>;
  /** A new draft copy of the template's current content; null when there is no such template. */
  duplicate(teamId: string, idOrAlias: string): Promise<string | null>;
}

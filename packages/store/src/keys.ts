/**
 * The whole Redis key layout of Petrel, in one place.
 *
 * Every key of a team's resource carries the `{<teamId>}` hash tag, so multi-key scripts on one
 * team's data work on Redis Cluster. A few global indexes (teams, API-key token hashes) live
 * outside any team. BullMQ keeps its own keys (`bull:<queue>:*`).
 */
export class Keys {
  constructor(readonly prefix: string = 'pt') {}

  /** Set of all team ids. */
  teams(): string {
    return `${this.prefix}:teams`;
  }
  /** Global index: sha256(token) → `<teamId>:<keyId>`. */
  apiKeyByHash(): string {
    return `${this.prefix}:api-key-hashes`;
  }
  /** Team record (hash). */
  team(teamId: string): string {
    return `${this.prefix}:{${teamId}}:team`;
  }
  apiKey(teamId: string, keyId: string): string {
    return `${this.prefix}:{${teamId}}:api-key:${keyId}`;
  }
  /** Sorted set of the team's API key ids by creation time. */
  apiKeys(teamId: string): string {
    return `${this.prefix}:{${teamId}}:api-keys`;
  }
  /** Email record (hash). */
  email(teamId: string, emailId: string): string {
    return `${this.prefix}:{${teamId}}:email:${emailId}`;
  }
  /** Event timeline of an email (list of JSON events, oldest first). */
  emailEvents(teamId: string, emailId: string): string {
    return `${this.prefix}:{${teamId}}:email:${emailId}:events`;
  }
  /** Sorted set of the team's email ids by creation time (ms). */
  emails(teamId: string): string {
    return `${this.prefix}:{${teamId}}:emails`;
  }
  /** Idempotency record (hash), keyed by sha256 of the raw Idempotency-Key. */
  idempotency(teamId: string, keyHash: string): string {
    return `${this.prefix}:{${teamId}}:idem:${keyHash}`;
  }
  /** Template record (hash). */
  template(teamId: string, templateId: string): string {
    return `${this.prefix}:{${teamId}}:template:${templateId}`;
  }
  /** One immutable version of a template (hash). */
  templateVersion(teamId: string, templateId: string, versionId: string): string {
    return `${this.prefix}:{${teamId}}:template:${templateId}:version:${versionId}`;
  }
  /** Sorted set of the team's template ids by creation time. */
  templates(teamId: string): string {
    return `${this.prefix}:{${teamId}}:templates`;
  }
  /** Hash alias → template id, per team. */
  templateAliases(teamId: string): string {
    return `${this.prefix}:{${teamId}}:template-aliases`;
  }
  /** Redis stream of internal email events for the webhook dispatcher. */
  events(): string {
    return `${this.prefix}:events`;
  }
}

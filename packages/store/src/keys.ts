/**
 * The whole Redis key layout of Petrel, in one place.
 *
 * Every key of a team's resource carries the `{<teamId>}` hash tag: Redis Cluster hashes only the
 * tag (Redis Cluster specification, "Keys hash tags"), so all of one team's keys share a slot and
 * a script or MULTI over them runs on a cluster. Two global keys live outside any team —
 * {@link Keys.teams} and {@link Keys.apiKeyByHash} — and each is only ever used ALONE in a
 * command, never together with another key in one script or transaction (the slot check in
 * slots.ts refuses that); the writes that touch a global key and a team's keys are separate
 * steps ordered so that a crash between them leaves nothing a reader can trip on (see each
 * store). BullMQ keeps its own keys under {@link Keys.bullPrefix}.
 */
export class Keys {
  constructor(readonly prefix: string = 'pt') {}

  /** GLOBAL, used alone: the set of all team ids (a member's team record exists, see ApiKeysStore). */
  teams(): string {
    return `${this.prefix}:teams`;
  }
  /**
   * GLOBAL, used alone: sha256(token) → `<teamId>:<keyId>:<permission>:<sha256>` (one HGET
   * authenticates; an entry's key record exists, see ApiKeysStore).
   */
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
  /**
   * BullMQ's key prefix (its keys are `<bullPrefix>:<queue>:*`): under the same prefix as
   * Petrel's own keys, so one REDIS_KEY_PREFIX separates everything of a deployment. BullMQ's
   * scripts touch only the keys of one queue; on a cluster each queue's name carries a hash tag
   * (packages/queue), so each queue lives in one slot.
   */
  bullPrefix(): string {
    return `${this.prefix}:bull`;
  }
  /**
   * The team's accepted emails whose send job may not exist yet (zset, scored by acceptance time
   * in ms; member `<lane>:<dueMs>:<emailId>`): written with the records, removed once the jobs
   * are enqueued; the outbox relay enqueues what a crash left behind.
   */
  outbox(teamId: string): string {
    return `${this.prefix}:{${teamId}}:outbox`;
  }
  /**
   * Redis stream of the team's email events, for the webhook dispatcher: per team, so it is
   * written in the same script (and slot) as the email's record and timeline.
   */
  events(teamId: string): string {
    return `${this.prefix}:{${teamId}}:events`;
  }
}

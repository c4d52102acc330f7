/**
 * The suppression list: one hash per entry (`suppression:<id>`: id, email, origin, source_id,
 * created_at; an absent source_id is null), the mailbox index `suppressionByEmail` (mailbox → id,
 * one entry per mailbox, read at send time), a creation-time listing, and one listing per origin.
 *
 * The per-origin listing (`<suppressions>:origin:<origin>`, under the team's hash tag like every
 * key of the team) is kept so `GET /suppressions?origin=` pages with the same cursor index as the
 * full list: filtering the full listing instead would read an unbounded number of entries to
 * fill one page of a rare origin (a list of a million bounces and ten manual entries). It costs
 * one ZADD / ZREM in the scripts that already write the entry.
 *
 * Entries never change after creation. Adds and removes are each one Lua script that also
 * appends the suppression.* event to the team's events stream; an add decides "already listed"
 * inside the script, so concurrent adds of one mailbox (two bounces at once) make one entry and
 * one event.
 */
import type { SuppressionOrigin, SuppressionRecord } from '@petrel/contracts';
import {
  UUID_RE,
  mailboxKey,
  newId,
  suppressionEventData,
  type Page,
  type PageRequest,
  type SuppressionRefs,
  type SuppressionsPort,
  idKey,
} from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN } from './keys.js';
import { pageIndex } from './page-index.js';
import { teamEventJson } from './team-event-json.js';
import { TeamStore } from './team-store.js';
import { pipeline } from './scripts.js';

/** Retries of an add whose existing entry was removed under it (only under heavy contention). */
const MAX_WRITE_ATTEMPTS = 8;

export class SuppressionsStore extends TeamStore implements SuppressionsPort {
  /** The listing of one origin's entries (see the header). */
  originIndex(teamId: string, origin: SuppressionOrigin): string {
    return this.keys.suppressionsByOrigin(teamId, origin);
  }

  async add(
    teamId: string,
    email: string,
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ record: SuppressionRecord; created: boolean }> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const { results, records } = await this.write(teamId, [email], origin, sourceId);
      const [id, created] = results[0]!;
      if (created === 1) return { record: records[0]!, created: true };
      const existing = await this.byId(teamId, id);
      if (existing) return { record: existing, created: false };
      // Removed between the script and the read: add again.
    }
    throw new Error(`suppression of ${email}: too many concurrent changes`);
  }

  async addMany(
    teamId: string,
    emails: readonly string[],
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ id: string; created: boolean }[]> {
    if (emails.length === 0) return [];
    const { results } = await this.write(teamId, emails, origin, sourceId);
    return results.map(([id, created]) => ({ id, created: created === 1 }));
  }

  async get(teamId: string, idOrEmail: string): Promise<SuppressionRecord | null> {
    const id = await this.resolveId(teamId, idOrEmail);
    return id === null ? null : this.byId(teamId, id);
  }

  async list(
    teamId: string,
    page: PageRequest,
    origin?: SuppressionOrigin,
  ): Promise<Page<SuppressionRecord> | null> {
    const index = origin ? this.originIndex(teamId, origin) : this.keys.suppressions(teamId);
    const found = await pageIndex(this.redis, index, page);
    if (!found) return null;
    const items = (await this.read(teamId, found.ids)).filter((r) => r !== null);
    return { items, hasMore: found.hasMore };
  }

  async remove(teamId: string, idOrEmail: string): Promise<SuppressionRecord | null> {
    const record = await this.get(teamId, idOrEmail);
    if (!record) return null;
    const [removed] = await this.delete(teamId, [record]);
    return removed ? record : null;
  }

  async removeMany(teamId: string, refs: SuppressionRefs): Promise<{ id: string; deleted: boolean }[]> {
    const given = 'emails' in refs ? refs.emails : refs.ids;
    const ids =
      'emails' in refs
        ? await this.idsOf(teamId, refs.emails)
        : refs.ids.map((id) => (UUID_RE.test(id) ? idKey(id) : null));
    const records = await this.read(teamId, ids);
    const found = records.filter((r) => r !== null);
    const deleted = found.length > 0 ? await this.delete(teamId, found) : [];
    let next = 0;
    return records.map((r, i) =>
      r === null ? { id: given[i]!, deleted: false } : { id: r.id, deleted: deleted[next++] === true },
    );
  }

  /** One script for `emails`: new entries for mailboxes not listed yet, the existing id otherwise. */
  private async write(
    teamId: string,
    emails: readonly string[],
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ results: [string, number][]; records: SuppressionRecord[] }> {
    const nowMs = this.clock.now();
    const createdAt = new Date(nowMs).toISOString();
    const records = emails.map((email): SuppressionRecord => ({
      id: newId(nowMs),
      email,
      origin,
      source_id: sourceId,
      created_at: createdAt,
    }));
    const keys = [
      this.keys.suppressionByEmail(teamId),
      this.keys.suppressions(teamId),
      this.originIndex(teamId, origin),
      this.keys.events(teamId),
      ...records.map((r) => this.keys.suppression(teamId, r.id)),
    ];
    const argv = [
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      nowMs,
      createdAt,
      origin,
      sourceId ?? '',
      ...records.flatMap((r) => [
        mailboxKey(r.email),
        r.id,
        r.email,
        teamEventJson('suppression.added', teamId, suppressionEventData(r), nowMs),
      ]),
    ];
    const results = await this.redis.petrelAddSuppressions(keys.length, ...keys, ...argv);
    return { results, records };
  }

  /** One script removing `records` (read before); per record, whether this call removed it. */
  private async delete(teamId: string, records: readonly SuppressionRecord[]): Promise<boolean[]> {
    const nowMs = this.clock.now();
    const keys = [
      this.keys.suppressionByEmail(teamId),
      this.keys.suppressions(teamId),
      this.keys.events(teamId),
      ...records.flatMap((r) => [this.keys.suppression(teamId, r.id), this.originIndex(teamId, r.origin)]),
    ];
    const argv = [
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      ...records.flatMap((r) => [
        r.id,
        mailboxKey(r.email),
        teamEventJson('suppression.removed', teamId, suppressionEventData(r), nowMs),
      ]),
    ];
    const res = await this.redis.petrelRemoveSuppressions(keys.length, ...keys, ...argv);
    return res.map((n) => n === 1);
  }

  /** An address (holds an `@`) is looked up by mailbox; anything else must be an id. */
  private async resolveId(teamId: string, idOrEmail: string): Promise<string | null> {
    if (idOrEmail.includes('@')) {
      return this.redis.hget(this.keys.suppressionByEmail(teamId), mailboxKey(idOrEmail.trim()));
    }
    return UUID_RE.test(idOrEmail) ? idOrEmail.toLowerCase() : null;
  }

  private async idsOf(teamId: string, emails: readonly string[]): Promise<(string | null)[]> {
    if (emails.length === 0) return [];
    return this.redis.hmget(this.keys.suppressionByEmail(teamId), ...emails.map((e) => mailboxKey(e)));
  }

  private async byId(teamId: string, id: string): Promise<SuppressionRecord | null> {
    const r = await this.redis.hgetall(this.keys.suppression(teamId, id));
    return r.id ? toSuppression(r) : null;
  }

  /** The records of `ids` in order, in one round trip; null for a missing one (or a null id). */
  private async read(teamId: string, ids: readonly (string | null)[]): Promise<(SuppressionRecord | null)[]> {
    const wanted = ids.filter((id) => id !== null);
    if (wanted.length === 0) return ids.map(() => null);
    const pipe = pipeline(this.redis, 'SuppressionsStore.read');
    for (const id of wanted) pipe.hgetall(this.keys.suppression(teamId, id));
    const rows = (await pipe.exec()) ?? [];
    const byId = new Map<string, SuppressionRecord>();
    for (const [, r] of rows) {
      const row = r as Record<string, string> | null;
      if (row?.id) byId.set(row.id, toSuppression(row));
    }
    return ids.map((id) => (id === null ? null : (byId.get(id) ?? null)));
  }
}

function toSuppression(r: Record<string, string>): SuppressionRecord {
  return {
    id: r.id ?? '',
    email: r.email ?? '',
    origin: (r.origin ?? 'manual') as SuppressionOrigin,
    source_id: r.source_id ?? null,
    created_at: r.created_at ?? '',
  };
}

/**
 * In-memory suppression list for unit tests of the suppression use-cases and of the sending
 * pipeline's bounce handling (SuppressionsPort, SuppressionsWriter): one entry per mailbox
 * (`mailboxKey`), ids or addresses in `idOrEmail`, newest-first listing, optionally of one
 * origin; `events` collects what the store would publish.
 */
import type { SuppressionOrigin, SuppressionRecord, TeamEvent } from '@petrel/contracts';
import {
  mailboxKey,
  newId,
  suppressionEventData,
  teamEvent,
  type Page,
  type PageRequest,
  type SuppressionRefs,
  type SuppressionsPort,
} from '@petrel/core';
import { pageNewestFirst, teamList } from './page.js';

export class MemorySuppressions implements SuppressionsPort {
  /** Entries by team, oldest first. */
  readonly entries = new Map<string, SuppressionRecord[]>();
  readonly events: TeamEvent[] = [];

  private of(teamId: string): SuppressionRecord[] {
    return teamList(this.entries, teamId);
  }

  private find(teamId: string, idOrEmail: string): SuppressionRecord | undefined {
    const list = this.of(teamId);
    if (idOrEmail.includes('@')) {
      const mailbox = mailboxKey(idOrEmail.trim());
      return list.find((s) => mailboxKey(s.email) === mailbox);
    }
    return list.find((s) => s.id === idOrEmail.toLowerCase());
  }

  private publish(type: TeamEvent['type'], teamId: string, s: SuppressionRecord): void {
    const stamp = { clock: Date, ids: { newEventId: () => newId() } };
    this.events.push(teamEvent(type, teamId, suppressionEventData(s), stamp));
  }

  async add(
    teamId: string,
    email: string,
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ record: SuppressionRecord; created: boolean }> {
    const existing = this.find(teamId, email);
    if (existing) return { record: existing, created: false };
    const record: SuppressionRecord = {
      id: newId(),
      email,
      origin,
      source_id: sourceId,
      created_at: new Date().toISOString(),
    };
    this.of(teamId).push(record);
    this.publish('suppression.added', teamId, record);
    return { record, created: true };
  }

  async addMany(
    teamId: string,
    emails: readonly string[],
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ id: string; created: boolean }[]> {
    const out: { id: string; created: boolean }[] = [];
    for (const email of emails) {
      const { record, created } = await this.add(teamId, email, origin, sourceId);
      out.push({ id: record.id, created });
    }
    return out;
  }

  async get(teamId: string, idOrEmail: string): Promise<SuppressionRecord | null> {
    return this.find(teamId, idOrEmail) ?? null;
  }

  async remove(teamId: string, idOrEmail: string): Promise<SuppressionRecord | null> {
    const found = this.find(teamId, idOrEmail);
    if (!found) return null;
    const list = this.of(teamId);
    list.splice(list.indexOf(found), 1);
    this.publish('suppression.removed', teamId, found);
    return found;
  }

  async removeMany(teamId: string, refs: SuppressionRefs): Promise<{ id: string; deleted: boolean }[]> {
    const given = 'emails' in refs ? refs.emails : refs.ids;
    const out: { id: string; deleted: boolean }[] = [];
    for (const ref of given) {
      const found = this.find(teamId, ref);
      if (found) await this.remove(teamId, found.id);
      out.push({ id: found?.id ?? ref, deleted: found !== undefined });
    }
    return out;
  }

  async list(
    teamId: string,
    page: PageRequest,
    origin?: SuppressionOrigin,
  ): Promise<Page<SuppressionRecord> | null> {
    const all = [...this.of(teamId)].reverse().filter((s) => origin === undefined || s.origin === origin);
    return pageNewestFirst(all, page);
  }
}

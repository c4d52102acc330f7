/**
 * Automations: one hash per automation (name, status, the trigger's event name, the validated
 * graph as JSON, timestamps), a creation-time listing, and per event name the set of automations
 * it triggers (so an event finds its automations with one SMEMBERS, whatever the team's count).
 * Writes are one script each (automations.scripts.ts); a change of trigger moves the id between
 * sets in the same script, guarded by the trigger the caller read.
 *
 * Listing reads every automation of the team and pages in memory: a team has few automations
 * (like topics), and the status filter then costs nothing more.
 */
import type { AutomationGraph, AutomationStatus } from '@petrel/contracts';
import {
  UUID_RE,
  newId,
  type AutomationPatch,
  type AutomationsPort,
  type NewAutomation,
  type StoredAutomation,
  idKey,
} from '@petrel/core';
import { TeamStore } from './team-store.js';
import { readHashes } from './hash-records.js';

const MAX_WRITE_ATTEMPTS = 8;

function triggerOf(graph: AutomationGraph): string {
  const t = graph.steps.find((s) => s.type === 'trigger');
  return t?.type === 'trigger' ? t.config.event_name : '';
}

function toAutomation(r: Record<string, string>): StoredAutomation {
  return {
    id: r.id!,
    name: r.name ?? '',
    status: (r.status ?? 'disabled') as AutomationStatus,
    created_at: r.created_at!,
    updated_at: r.updated_at!,
    graph: JSON.parse(r.graph ?? '{"steps":[],"connections":[]}') as AutomationGraph,
  };
}

export interface AutomationListPage {
  items: StoredAutomation[];
  hasMore: boolean;
}

export class AutomationsStore extends TeamStore implements AutomationsPort {
  /**
   * One write of petrelSaveAutomation: the record's `fields`, moving its entry from the index of
   * trigger `before` (on create '': the script leaves that set alone) to that of `trigger`;
   * `createdMs` scores a new listing entry.
   */
  private save(
    teamId: string,
    id: string,
    mode: 'create' | 'update',
    createdMs: number,
    before: string,
    trigger: string,
    fields: string[],
  ): Promise<number> {
    const k = this.keys;
    return this.redis.petrelSaveAutomation(
      k.automation(teamId, id),
      k.automations(teamId),
      k.automationTrigger(teamId, before),
      k.automationTrigger(teamId, trigger),
      id,
      mode,
      createdMs,
      before,
      ...fields,
    );
  }

  /**
   * An optimistic write of automation `id`: `write` with the trigger read just before, which its
   * script compares (1 written, 0 gone, -1 the trigger changed in between: read again and retry).
   * False when the automation does not exist.
   */
  private async onTrigger(
    teamId: string,
    id: string,
    write: (trigger: string) => Promise<number>,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const trigger = await this.redis.hget(this.keys.automation(teamId, id), 'trigger');
      if (trigger === null) return false;
      const res = await write(trigger);
      if (res === 1) return true;
      if (res === 0) return false;
    }
    throw new Error(`automation ${id}: too many concurrent updates`);
  }

  async create(teamId: string, a: NewAutomation): Promise<{ id: string }> {
    const now = this.clock.now();
    const id = newId(now);
    const iso = new Date(now).toISOString();
    const trigger = triggerOf(a.graph);
    await this.save(teamId, id, 'create', now, '', trigger, [
      ...['id', id, 'name', a.name, 'status', a.status, 'trigger', trigger],
      ...['graph', JSON.stringify(a.graph), 'created_at', iso, 'updated_at', iso],
    ]);
    return { id };
  }

  async get(teamId: string, id: string): Promise<StoredAutomation | null> {
    if (!UUID_RE.test(id)) return null;
    const r = await this.redis.hgetall(this.keys.automation(teamId, idKey(id)));
    return r.id ? toAutomation(r) : null;
  }

  async update(teamId: string, rawId: string, patch: AutomationPatch): Promise<boolean> {
    if (!UUID_RE.test(rawId)) return false;
    const id = idKey(rawId);
    return this.onTrigger(teamId, id, (before) => {
      const trigger = patch.graph ? triggerOf(patch.graph) : before;
      const fields: string[] = ['updated_at', new Date(this.clock.now()).toISOString()];
      if (patch.name !== undefined) fields.push('name', patch.name);
      if (patch.status !== undefined) fields.push('status', patch.status);
      if (patch.graph !== undefined) fields.push('graph', JSON.stringify(patch.graph), 'trigger', trigger);
      return this.save(teamId, id, 'update', 0, before, trigger, fields);
    });
  }

  async remove(teamId: string, rawId: string): Promise<boolean> {
    if (!UUID_RE.test(rawId)) return false;
    const id = idKey(rawId);
    const k = this.keys;
    return this.onTrigger(teamId, id, (trigger) =>
      this.redis.petrelDeleteAutomation(
        k.automation(teamId, id),
        k.automations(teamId),
        k.automationTrigger(teamId, trigger),
        id,
        trigger,
      ),
    );
  }

  async triggeredBy(teamId: string, eventName: string): Promise<StoredAutomation[]> {
    const ids = await this.redis.smembers(this.keys.automationTrigger(teamId, eventName));
    const all = await readHashes(
      this.redis,
      'AutomationsStore.triggeredBy',
      ids.map((id) => this.keys.automation(teamId, id)),
      toAutomation,
    );
    return all.filter((a) => a.status === 'enabled' && triggerOf(a.graph) === eventName);
  }

  /** Newest first, optionally of one status; null for an unknown cursor. */
  async list(
    teamId: string,
    page: { limit: number; after?: string; before?: string },
    status?: AutomationStatus,
  ): Promise<AutomationListPage | null> {
    const ids = await this.redis.zrevrange(this.keys.automations(teamId), 0, -1);
    const all = await readHashes(
      this.redis,
      'AutomationsStore.list',
      ids.map((id) => this.keys.automation(teamId, id)),
      toAutomation,
    );
    return pageOf(status ? all.filter((a) => a.status === status) : all, page);
  }
}

/** A page of `items` (newest first) by id cursor, as pageIndex pages a listing; null for an unknown cursor. */
export function pageOf<T extends { id: string }>(
  items: readonly T[],
  page: { limit: number; after?: string; before?: string },
): { items: T[]; hasMore: boolean } | null {
  const cursor = page.after ?? page.before;
  if (!cursor) return { items: items.slice(0, page.limit), hasMore: items.length > page.limit };
  const at = items.findIndex((x) => x.id === idKey(cursor));
  if (at < 0) return null;
  if (page.after) {
    const rest = items.slice(at + 1);
    return { items: rest.slice(0, page.limit), hasMore: rest.length > page.limit };
  }
  const start = Math.max(0, at - page.limit);
  return { items: items.slice(start, at), hasMore: start > 0 };
}

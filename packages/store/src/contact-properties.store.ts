/**
 * Contact properties: one hash per property (id, key, type, fallback_value as JSON — absent =
 * null, created_at), a creation-time listing and the team's key → id index (keys are unique and
 * case-sensitive, decided inside the create script). Key and type never change; deleting a
 * property makes the values contacts hold under its id unreadable (contacts.records.ts).
 */
import type { ContactPropertyRecord, ContactPropertyValue } from '@petrel/contracts';
import {
  UUID_RE,
  newId,
  type ContactPropertiesPort,
  type NewContactProperty,
  type Page,
  type PageRequest,
  idKey,
} from '@petrel/core';
import { TeamStore } from './team-store.js';
import { execAll, pipeline } from './scripts.js';
import { getHash, pageHashes, readHashes } from './hash-records.js';

function toProperty(r: Record<string, string>): ContactPropertyRecord {
  return {
    id: r.id ?? '',
    key: r.key ?? '',
    type: r.type === 'number' ? 'number' : 'string',
    fallback_value:
      r.fallback_value === undefined ? null : (JSON.parse(r.fallback_value) as ContactPropertyValue),
    created_at: r.created_at ?? '',
  };
}

export class ContactPropertiesStore extends TeamStore implements ContactPropertiesPort {
  get(teamId: string, id: string): Promise<ContactPropertyRecord | null> {
    return getHash(this.redis, (p) => this.keys.contactProperty(teamId, p), id, toProperty);
  }

  async all(teamId: string): Promise<ContactPropertyRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.contactProperties(teamId), 0, -1);
    return this.read(teamId, ids);
  }

  /** Newest first; null for an unknown cursor. */
  list(teamId: string, page: PageRequest): Promise<Page<ContactPropertyRecord> | null> {
    const keyOf = (p: string): string => this.keys.contactProperty(teamId, p);
    const index = this.keys.contactProperties(teamId);
    return pageHashes(this.redis, 'ContactPropertiesStore.list', index, page, keyOf, toProperty);
  }

  async create(
    teamId: string,
    p: NewContactProperty,
  ): Promise<{ ok: true; id: string } | { ok: false; reason: 'key_taken' }> {
    const nowMs = this.clock.now();
    const id = newId(nowMs);
    const fields = ['id', id, 'key', p.key, 'type', p.type, 'created_at', new Date(nowMs).toISOString()];
    if (p.fallback_value !== null) fields.push('fallback_value', JSON.stringify(p.fallback_value));
    const ok = await this.redis.petrelCreateContactProperty(
      this.keys.contactProperty(teamId, id),
      this.keys.contactProperties(teamId),
      this.keys.contactPropertyKeys(teamId),
      id,
      p.key,
      nowMs,
      ...fields,
    );
    return ok === 1 ? { ok: true, id } : { ok: false, reason: 'key_taken' };
  }

  async setFallback(teamId: string, id: string, fallback: ContactPropertyValue | null): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    const key = this.keys.contactProperty(teamId, idKey(id));
    if (fallback !== null) {
      return (
        (await this.redis.petrelSetFieldsIfExists(key, 'fallback_value', JSON.stringify(fallback))) === 1
      );
    }
    const [exists] = await execAll(
      pipeline(this.redis, 'ContactPropertiesStore.setFallback').exists(key).hdel(key, 'fallback_value'),
    );
    return exists === 1;
  }

  /** False when there is no such property. */
  async remove(teamId: string, id: string): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    const pid = idKey(id);
    const res = await this.redis.petrelDeleteContactProperty(
      this.keys.contactProperty(teamId, pid),
      this.keys.contactProperties(teamId),
      this.keys.contactPropertyKeys(teamId),
      pid,
    );
    return res === 1;
  }

  private async read(teamId: string, ids: readonly string[]): Promise<ContactPropertyRecord[]> {
    const keys = ids.map((id) => this.keys.contactProperty(teamId, id));
    return readHashes(this.redis, 'ContactPropertiesStore.read', keys, toProperty);
  }
}

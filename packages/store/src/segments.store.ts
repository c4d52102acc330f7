/**
 * Segments (Resend's successor of audiences): one hash per segment (id, name, created_at), a
 * creation-time listing, and a member listing per segment (`segmentMembers`, contact ids scored
 * by the contact's creation time), mirrored by each contact's segment set. Memberships are
 * written by ContactsStore, which also checks the segment exists in the same script.
 *
 * Deleting a segment deletes its record, listing entry and member listing at once; the entries
 * in its former members' segment sets are left to be ignored (every reader keeps only segments
 * whose record exists, and ids are never reused), so a delete costs the same for a segment of
 * ten contacts or of a million.
 */
import type { SegmentRecord } from '@petrel/contracts';
import { UUID_RE, newId, type Page, type PageRequest, type SegmentsReader, idKey } from '@petrel/core';
import { TeamStore } from './team-store.js';
import { execAll, transaction } from './scripts.js';
import { getHash, pageHashes } from './hash-records.js';

export function toSegment(r: Record<string, string>): SegmentRecord {
  return { id: r.id ?? '', name: r.name ?? '', created_at: r.created_at ?? '' };
}

export class SegmentsStore extends TeamStore implements SegmentsReader {
  get(teamId: string, id: string): Promise<SegmentRecord | null> {
    return getHash(this.redis, (s) => this.keys.segment(teamId, s), id, toSegment);
  }

  /** Newest first; null for an unknown cursor. */
  list(teamId: string, page: PageRequest): Promise<Page<SegmentRecord> | null> {
    const keyOf = (s: string): string => this.keys.segment(teamId, s);
    return pageHashes(this.redis, 'SegmentsStore.list', this.keys.segments(teamId), page, keyOf, toSegment);
  }

  async create(teamId: string, name: string): Promise<SegmentRecord> {
    const nowMs = this.clock.now();
    const segment: SegmentRecord = { id: newId(nowMs), name, created_at: new Date(nowMs).toISOString() };
    await execAll(
      transaction(this.redis, 'SegmentsStore.create')
        .hset(this.keys.segment(teamId, segment.id), segment)
        .zadd(this.keys.segments(teamId), nowMs, segment.id),
    );
    return segment;
  }

  /** False when there is no such segment. */
  async rename(teamId: string, id: string, name: string): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    return (
      (await this.redis.petrelSetFieldsIfExists(this.keys.segment(teamId, idKey(id)), 'name', name)) === 1
    );
  }

  /** Deletes the segment and its memberships (not its contacts); false when there is none. */
  async remove(teamId: string, id: string): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    const seg = idKey(id);
    const [deleted] = await execAll(
      transaction(this.redis, 'SegmentsStore.remove')
        .del(this.keys.segment(teamId, seg))
        .zrem(this.keys.segments(teamId), seg)
        .del(this.keys.segmentMembers(teamId, seg)),
    );
    return deleted === 1;
  }
}

/**
 * A segment's members a page at a time, for the broadcast fan-out (SegmentMembersPager): the
 * members zset (`segmentMembers`, contact ids scored by contact creation ms) from a cursor, in
 * (score, id) order — stable while contacts join or leave, since a new contact scores after
 * every existing one — then the page's contact hashes in one pipeline, read with the contacts
 * store's own parser. Two round trips per page, both in the team's slot.
 */
import type { ContactRecord } from '@petrel/contracts';
import type { FanoutCursor, SegmentMembersPager } from '@petrel/core';
import { keysById, toContact } from './contacts.records.js';
import { TeamStore } from './team-store.js';
import { execAll, pipeline } from './scripts.js';

export class SegmentMembersStore extends TeamStore implements SegmentMembersPager {
  /**
   * Up to `limit` contacts after `after`; fewer only at the end of the segment. A member whose
   * contact was deleted between the two reads is passed over and the page topped up after it,
   * so a short page always means the end.
   */
  async page(
    teamId: string,
    segmentId: string,
    after: FanoutCursor | null,
    limit: number,
  ): Promise<{ contacts: (ContactRecord & { score: number })[] }> {
    const contacts: (ContactRecord & { score: number })[] = [];
    let from = after;
    while (contacts.length < limit) {
      const want = limit - contacts.length;
      const flat = await this.redis.petrelSegmentMembersAfter(
        this.keys.segmentMembers(teamId, segmentId),
        from ? String(from.score) : '',
        from ? from.contactId : '',
        want,
      );
      if (flat.length === 0) break;
      contacts.push(...(await this.read(teamId, flat)));
      from = { contactId: flat[flat.length - 2]!, score: Number(flat[flat.length - 1]) };
      if (flat.length < 2 * want) break;
    }
    return { contacts };
  }

  /** The contacts of `flat` (id, score, id, score…) that still exist, in that order. */
  private async read(
    teamId: string,
    flat: readonly string[],
  ): Promise<(ContactRecord & { score: number })[]> {
    const pipe = pipeline(this.redis, 'SegmentMembersStore.page');
    pipe.hgetall(this.keys.contactPropertyKeys(teamId));
    for (let i = 0; i < flat.length; i += 2) pipe.hgetall(this.keys.contact(teamId, flat[i]!));
    const [propertyKeys, ...rows] = (await execAll(pipe)) as Record<string, string>[];
    const keyById = keysById(propertyKeys!);
    const out: (ContactRecord & { score: number })[] = [];
    rows.forEach((r, i) => {
      if (r.id) out.push({ ...toContact(r, keyById), score: Number(flat[2 * i + 1]) });
    });
    return out;
  }
}

/**
 * The contract of core's SuppressionsPort (packages/core/src/audience/suppressions), run against
 * the in-memory port and the Redis store: one entry per mailbox per team (adding again is
 * idempotent), entries by id or address, newest-first listing by origin.
 */
import { expect, it } from 'vitest';
import type { SuppressionsPort } from '@petrel/core';
import { UNKNOWN_ID, describePortContract, expectNewestFirstPaging, type MakePort } from './kit.js';

export function describeSuppressionsContract(name: string, makePort: MakePort<SuppressionsPort>): void {
  describePortContract(`SuppressionsPort contract: ${name}`, makePort, (setup) => {
    it('adds once per mailbox: again in another case is the same entry, not created', async () => {
      const { port, team, other } = setup();
      const first = await port.add(team, 'Ada@Example.test', 'manual', null);
      expect(first).toMatchObject({
        created: true,
        record: { email: 'Ada@Example.test', origin: 'manual', source_id: null },
      });
      const again = await port.add(team, 'ada@EXAMPLE.test', 'bounce', 'email-1');
      expect(again).toEqual({ record: first.record, created: false });
      expect(await port.get(team, first.record.id)).toEqual(first.record);
      expect(await port.get(team, first.record.id.toUpperCase())).toEqual(first.record);
      expect(await port.get(team, 'ADA@example.test')).toEqual(first.record);
      expect(await port.get(team, UNKNOWN_ID)).toBeNull();
      expect(await port.get(team, 'nobody@example.test')).toBeNull();
      // another team has its own list
      expect(await port.get(other, first.record.id)).toBeNull();
      expect(await port.add(other, 'ada@example.test', 'manual', null)).toMatchObject({
        created: true,
      });
    });

    it('addMany answers in order, an existing mailbox with its id', async () => {
      const { port, team } = setup();
      const existing = await port.add(team, 'b@example.test', 'manual', null);
      const res = await port.addMany(team, ['a@example.test', 'B@example.test'], 'complaint', 'e-1');
      expect(res).toEqual([
        { id: expect.any(String), created: true },
        { id: existing.record.id, created: false },
      ]);
      expect(await port.get(team, 'a@example.test')).toMatchObject({ id: res[0]!.id, origin: 'complaint' });
    });

    it('lists newest first with cursors, and by origin', async () => {
      const { port, team } = setup();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await port.add(team, `s${i}@example.test`, i % 2 ? 'bounce' : 'manual', null)).record.id);
      }
      await expectNewestFirstPaging((page) => port.list(team, page), ids);
      const bounces = await port.list(team, { limit: 10 }, 'bounce');
      expect(bounces?.items.map((s) => s.id)).toEqual([ids[3], ids[1]]);
      expect(await port.list(team, { limit: 10 }, 'complaint')).toEqual({ items: [], hasMore: false });
    });

    it('remove by id or address: the entry once, then null; removeMany answers in order', async () => {
      const { port, team, other } = setup();
      const a = (await port.add(team, 'a@example.test', 'manual', null)).record;
      const b = (await port.add(team, 'b@example.test', 'manual', null)).record;
      const c = (await port.add(team, 'c@example.test', 'manual', null)).record;
      expect(await port.remove(other, a.id)).toBeNull();
      expect(await port.remove(team, 'A@example.test')).toEqual(a);
      expect(await port.remove(team, a.id)).toBeNull();
      expect(await port.removeMany(team, { emails: ['nobody@example.test', 'B@example.test'] })).toEqual([
        { id: 'nobody@example.test', deleted: false },
        { id: b.id, deleted: true },
      ]);
      expect(await port.removeMany(team, { ids: [c.id.toUpperCase(), UNKNOWN_ID] })).toEqual([
        { id: c.id, deleted: true },
        { id: UNKNOWN_ID, deleted: false },
      ]);
      expect(await port.list(team, { limit: 10 })).toEqual({ items: [], hasMore: false });
    });
  });
}

/**
 * The contract of core's TopicsPort (packages/core/src/audience/topics/topics-port.ts), run
 * against the in-memory port and the Redis store.
 */
import { expect, it } from 'vitest';
import type { NewTopic, TopicsPort } from '@petrel/core';
import { UNKNOWN_ID, describePortContract, expectNewestFirstPaging, type MakePort } from './kit.js';

const topic: NewTopic = {
  name: 'News',
  description: 'Monthly',
  default_subscription: 'opt_in',
  visibility: 'public',
};

export function describeTopicsContract(name: string, makePort: MakePort<TopicsPort>): void {
  describePortContract(`TopicsPort contract: ${name}`, makePort, (setup) => {
    it('creates a topic read back by id in any case; all() and list() are newest first', async () => {
      const { port, team } = setup();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await port.create(team, { ...topic, name: `t${i}` })).id);
      const first = await port.get(team, ids[0]!);
      expect(first).toMatchObject({ ...topic, name: 't0', id: ids[0] });
      expect(await port.get(team, ids[0]!.toUpperCase())).toEqual(first);
      expect(await port.get(team, UNKNOWN_ID)).toBeNull();
      expect((await port.all(team)).map((t) => t.id)).toEqual([...ids].reverse());
      await expectNewestFirstPaging((page) => port.list(team, page), ids);
    });

    it('update: absent keeps, description null clears; unknown or foreign is null', async () => {
      const { port, team, other } = setup();
      const t = await port.create(team, topic);
      const updated = await port.update(team, t.id.toUpperCase(), {
        description: null,
        visibility: 'private',
      });
      expect(updated).toMatchObject({ id: t.id, name: 'News', description: null, visibility: 'private' });
      expect(await port.get(team, t.id)).toEqual(updated);
      expect(await port.update(team, UNKNOWN_ID, { name: 'x' })).toBeNull();
      expect(await port.update(other, t.id, { name: 'x' })).toBeNull();
      expect(await port.get(team, t.id)).toMatchObject({ name: 'News' });
    });

    it('remove: the removed record once, then null; gone from all(); teams apart', async () => {
      const { port, team, other } = setup();
      const keep = await port.create(team, topic);
      const t = await port.create(team, topic);
      expect(await port.remove(other, t.id)).toBeNull();
      expect(await port.remove(team, t.id)).toMatchObject({ id: t.id, name: 'News' });
      expect(await port.remove(team, t.id)).toBeNull();
      expect(await port.get(team, t.id)).toBeNull();
      expect((await port.all(team)).map((x) => x.id)).toEqual([keep.id]);
      expect(await port.all(other)).toEqual([]);
    });
  });
}

/**
 * The contract of core's BroadcastsPort (packages/core/src/broadcasts/ports.ts): what the
 * broadcast use-cases and the fan-out rely on, run against the in-memory port (unit project) and
 * the Redis store (integration and integration-cluster projects), so the two cannot drift.
 */
import { expect, it } from 'vitest';
import type { BroadcastContent, BroadcastsPort, CasResult } from '@petrel/core';
import { UNKNOWN_ID, describePortContract, expectNewestFirstPaging, type MakePort } from './kit.js';

const broadcastContent: BroadcastContent = {
  name: 'November news',
  segment_id: '0198a0a0-0000-7000-8000-000000000001',
  from: 'Acme <news@acme.test>',
  subject: 'News',
  reply_to: ['a@acme.test'],
  html: '<p>Hi</p>',
  text: null,
  preview_text: null,
  topic_id: null,
};

const refused = (status: string): CasResult => ({ ok: false, reason: 'status', status }) as CasResult;
const missing: CasResult = { ok: false, reason: 'not_found' };

export function describeBroadcastsContract(name: string, makePort: MakePort<BroadcastsPort>): void {
  describePortContract(`BroadcastsPort contract: ${name}`, makePort, (setup) => {
    it('creates a draft with zero counts that reads back whole, by its id in any case', async () => {
      const { port, team } = setup();
      const b = await port.create(team, broadcastContent);
      expect(b).toMatchObject({
        ...broadcastContent,
        status: 'draft',
        scheduled_at: null,
        sent_at: null,
        counts: { total: 0, enqueued: 0, skipped: 0 },
      });
      expect(await port.get(team, b.id)).toEqual(b);
      expect(await port.get(team, b.id.toUpperCase())).toEqual(b);
      expect(await port.get(team, UNKNOWN_ID)).toBeNull();
    });

    it('lists newest first with after/before cursors; an unknown cursor is null', async () => {
      const { port, team } = setup();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await port.create(team, { ...broadcastContent, name: `b${i}` })).id);
      await expectNewestFirstPaging((page) => port.list(team, page), ids);
    });

    it("keeps teams apart: another team's id is not found for every operation", async () => {
      const { port, team, other } = setup();
      const b = await port.create(team, broadcastContent);
      expect(await port.get(other, b.id)).toBeNull();
      expect(await port.list(other, { limit: 10 })).toEqual({ items: [], hasMore: false });
      expect(await port.update(other, b.id, { name: 'x' })).toEqual(missing);
      expect(await port.schedule(other, b.id, 1)).toEqual(missing);
      expect(await port.cancel(other, b.id)).toEqual(missing);
      expect(await port.remove(other, b.id)).toEqual(missing);
      expect(await port.startFanout(other, b.id, 1)).toEqual({ ok: false, reason: 'not_found' });
      expect(await port.get(team, b.id)).toMatchObject({ status: 'draft', name: broadcastContent.name });
    });

    it('a draft is edited (undefined keeps a field) and scheduled; then edits and a second schedule are refused', async () => {
      const { port, team } = setup();
      const b = await port.create(team, broadcastContent);
      const edited = await port.update(team, b.id, { subject: 'New subject', name: undefined });
      expect(edited).toMatchObject({
        ok: true,
        record: { subject: 'New subject', name: broadcastContent.name },
      });
      const dueMs = Date.parse('2030-02-01T10:00:00.000Z');
      const scheduled = await port.schedule(team, b.id, dueMs);
      expect(scheduled).toMatchObject({
        ok: true,
        record: { status: 'scheduled', scheduled_at: '2030-02-01T10:00:00.000Z' },
      });
      expect(await port.update(team, b.id, { subject: 'late' })).toEqual(refused('scheduled'));
      expect(await port.schedule(team, b.id, dueMs)).toEqual(refused('scheduled'));
      expect(await port.get(team, b.id)).toMatchObject({ subject: 'New subject', status: 'scheduled' });
      expect(await port.update(team, UNKNOWN_ID, { subject: 'x' })).toEqual(missing);
    });

    it('cancel: a draft is refused, a scheduled one is canceled, once', async () => {
      const { port, team } = setup();
      const b = await port.create(team, broadcastContent);
      expect(await port.cancel(team, b.id)).toEqual(refused('draft'));
      await port.schedule(team, b.id, 1);
      expect(await port.cancel(team, b.id)).toMatchObject({ ok: true, record: { status: 'canceled' } });
      expect(await port.cancel(team, b.id)).toEqual(refused('canceled'));
      expect(await port.startFanout(team, b.id, 1)).toEqual({ ok: false, reason: 'status' });
      expect(await port.cancel(team, UNKNOWN_ID)).toEqual(missing);
    });

    it('remove: a draft and a scheduled one go (and leave the listing); a canceled one stays', async () => {
      const { port, team } = setup();
      const draft = await port.create(team, broadcastContent);
      const scheduled = await port.create(team, broadcastContent);
      const canceled = await port.create(team, broadcastContent);
      await port.schedule(team, scheduled.id, 1);
      await port.schedule(team, canceled.id, 1);
      await port.cancel(team, canceled.id);
      expect(await port.remove(team, draft.id)).toMatchObject({ ok: true });
      expect(await port.remove(team, scheduled.id.toUpperCase())).toMatchObject({ ok: true });
      expect(await port.remove(team, canceled.id)).toEqual(refused('canceled'));
      expect(await port.remove(team, draft.id)).toEqual(missing);
      expect(await port.get(team, draft.id)).toBeNull();
      const listed = await port.list(team, { limit: 10 });
      expect(listed?.items.map((x) => x.id)).toEqual([canceled.id]);
    });

    it('fan-out: scheduled → queued once (a resumed start keeps its stamp and cursor), checkpoints by compare-and-set, → sent', async () => {
      const { port, team } = setup();
      const b = await port.create(team, broadcastContent);
      expect(await port.startFanout(team, b.id, 5)).toEqual({ ok: false, reason: 'status' });
      await port.schedule(team, b.id, 1);
      const started = await port.startFanout(team, b.id, 1_000);
      expect(started).toMatchObject({
        ok: true,
        startedMs: 1_000,
        cursor: null,
        record: { status: 'queued' },
      });
      const to = { score: 10, contactId: 'c-1' };
      expect(
        await port.checkpoint(team, b.id, { from: null, to }, { total: 3, enqueued: 2, skipped: 1 }),
      ).toBe('ok');
      // a second run that read the same old cursor counts nothing
      expect(
        await port.checkpoint(team, b.id, { from: null, to }, { total: 3, enqueued: 2, skipped: 1 }),
      ).toBe('moved');
      const resumed = await port.startFanout(team, b.id, 9_000);
      expect(resumed).toMatchObject({ ok: true, startedMs: 1_000, cursor: to });
      expect(await port.get(team, b.id)).toMatchObject({ counts: { total: 3, enqueued: 2, skipped: 1 } });
      // the API side cannot edit or delete a broadcast whose fan-out runs
      expect(await port.update(team, b.id, { name: 'x' })).toEqual(refused('queued'));
      expect(await port.remove(team, b.id)).toEqual(refused('queued'));
      expect(await port.finishFanout(team, b.id, Date.parse('2030-02-01T10:00:00.000Z'))).toBe(true);
      expect(await port.get(team, b.id)).toMatchObject({
        status: 'sent',
        sent_at: '2030-02-01T10:00:00.000Z',
      });
      expect(await port.finishFanout(team, b.id, 1)).toBe(false);
      expect(await port.checkpoint(team, b.id, { from: to, to }, { total: 1, enqueued: 1, skipped: 0 })).toBe(
        'not_queued',
      );
      expect(await port.cancel(team, b.id)).toEqual(refused('sent'));
      expect(await port.startFanout(team, b.id, 1)).toEqual({ ok: false, reason: 'status' });
    });

    it('a queued broadcast is canceled, and its fan-out then stops', async () => {
      const { port, team } = setup();
      const b = await port.create(team, broadcastContent);
      await port.schedule(team, b.id, 1);
      await port.startFanout(team, b.id, 1);
      expect(await port.cancel(team, b.id)).toMatchObject({ ok: true, record: { status: 'canceled' } });
      const to = { score: 1, contactId: 'c-1' };
      expect(
        await port.checkpoint(team, b.id, { from: null, to }, { total: 1, enqueued: 1, skipped: 0 }),
      ).toBe('not_queued');
      expect(await port.finishFanout(team, b.id, 1)).toBe(false);
    });
  });
}

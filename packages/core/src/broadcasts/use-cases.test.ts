import { describe, expect, it } from 'vitest';
import type { PetrelError } from '@petrel/contracts';
import { MemoryBroadcasts, MemoryFanoutScheduler, MemorySegments, MemoryTopics } from '@petrel/testing';
import {
  cancelBroadcast,
  resumeBroadcast,
  createBroadcast,
  deleteBroadcast,
  duplicateBroadcast,
  sendBroadcast,
  updateBroadcast,
  type BroadcastPorts,
} from './use-cases.js';
import type { CreateBroadcastInput } from './schemas.js';

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const SEGMENT = '0198a0a0-0000-7000-8000-00000000000a';
const T = 'team';

async function ports() {
  const clock = { now: () => NOW };
  const topics = new MemoryTopics();
  const topic = await topics.create(T, {
    name: 'News',
    description: null,
    default_subscription: 'opt_in',
    visibility: 'public',
  });
  const p = {
    broadcasts: new MemoryBroadcasts(clock),
    segments: new MemorySegments().add(T, { id: SEGMENT, name: 'All', created_at: '' }),
    topics,
    fanout: new MemoryFanoutScheduler(),
    clock,
  } satisfies BroadcastPorts;
  return { ...p, topicId: topic.id };
}

const input: CreateBroadcastInput = {
  segment_id: SEGMENT.toUpperCase(),
  from: 'Acme <news@acme.test>',
  subject: 'News',
  html: '<p>Hi</p>',
};

/** The error a promise rejects with, as `<status> <message>`. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    const e = err as PetrelError;
    return `${e.statusCode} ${e.message}`;
  }
  throw new Error('expected a refusal');
}

describe('createBroadcast', () => {
  it('stores a draft with the segment and topic ids as stored; reply_to as a list', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, reply_to: 'r@acme.test', topic_id: p.topicId.toUpperCase() } },
      p,
    );
    expect(await p.broadcasts.get(T, id)).toMatchObject({
      status: 'draft',
      segment_id: SEGMENT,
      topic_id: p.topicId,
      reply_to: ['r@acme.test'],
      name: null,
      text: null,
      preview_text: null,
    });
    expect(p.fanout.calls).toEqual([]);
  });

  it('takes the legacy audience_id', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, segment_id: undefined, audience_id: SEGMENT } },
      p,
    );
    expect((await p.broadcasts.get(T, id))?.segment_id).toBe(SEGMENT);
  });

  it('refuses an unknown segment or topic (422 naming the field), writing nothing', async () => {
    const p = await ports();
    const other = '0198a0a0-0000-7000-8000-0000000000ff';
    expect(await refusal(createBroadcast({ teamId: T, input: { ...input, segment_id: other } }, p))).toBe(
      '422 segment_id: no such segment',
    );
    expect(
      await refusal(
        createBroadcast({ teamId: T, input: { ...input, segment_id: undefined, audience_id: other } }, p),
      ),
    ).toBe('422 audience_id: no such segment');
    expect(await refusal(createBroadcast({ teamId: T, input: { ...input, topic_id: other } }, p))).toBe(
      '422 topic_id: no such topic',
    );
    expect(p.broadcasts.writes).toEqual([]);
  });

  it('send: true schedules it now; with scheduled_at at that time (ISO or natural language)', async () => {
    const p = await ports();
    const now = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
    const later = await createBroadcast(
      { teamId: T, input: { ...input, send: true, scheduled_at: 'in 2 hours' } },
      p,
    );
    expect(await p.broadcasts.get(T, now.id)).toMatchObject({
      status: 'scheduled',
      scheduled_at: new Date(NOW).toISOString(),
    });
    expect(await p.broadcasts.get(T, later.id)).toMatchObject({
      status: 'scheduled',
      scheduled_at: '2030-01-01T14:00:00.000Z',
    });
    expect(p.fanout.jobs).toEqual(
      new Map([
        [`${T}:${now.id}`, NOW],
        [`${T}:${later.id}`, NOW + 2 * 3_600_000],
      ]),
    );
  });

  it('a bad scheduled_at is a 422 and leaves no draft behind', async () => {
    const p = await ports();
    expect(
      await refusal(
        createBroadcast({ teamId: T, input: { ...input, send: true, scheduled_at: 'someday' } }, p),
      ),
    ).toMatch(/^422 scheduled_at: must be an ISO 8601 date-time/);
    expect(
      await refusal(
        createBroadcast(
          { teamId: T, input: { ...input, send: true, scheduled_at: '2029-01-01T00:00:00Z' } },
          p,
        ),
      ),
    ).toBe('422 scheduled_at: must be in the future');
    expect(p.broadcasts.writes).toEqual([]);
  });
});

describe('updateBroadcast', () => {
  it('patches a draft: null clears, the segment and topic are checked', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, name: 'Nov', reply_to: ['a@x.test'] } },
      p,
    );
    await updateBroadcast(
      {
        teamId: T,
        id,
        input: { name: null, reply_to: null, text: 'Hi', subject: 'New', topic_id: p.topicId },
      },
      p,
    );
    expect(await p.broadcasts.get(T, id)).toMatchObject({
      name: null,
      reply_to: null,
      text: 'Hi',
      subject: 'New',
      topic_id: p.topicId,
      html: '<p>Hi</p>',
    });
    expect(
      await refusal(
        updateBroadcast({ teamId: T, id, input: { segment_id: '0198a0a0-0000-7000-8000-0000000000ff' } }, p),
      ),
    ).toBe('422 segment_id: no such segment');
  });

  it('keeps html or text: clearing the last one is refused', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input }, p);
    expect(await refusal(updateBroadcast({ teamId: T, id, input: { html: null } }, p))).toBe(
      '422 body: one of html or text is required',
    );
    await updateBroadcast({ teamId: T, id, input: { html: null, text: 'plain' } }, p);
    expect(await p.broadcasts.get(T, id)).toMatchObject({ html: null, text: 'plain' });
  });

  it('only a draft: 404 for an unknown id, 422 saying the status otherwise', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
    expect(await refusal(updateBroadcast({ teamId: T, id, input: { subject: 'x' } }, p))).toBe(
      '422 broadcast is scheduled (status scheduled) and cannot be updated: only a draft can be changed',
    );
    expect(await refusal(updateBroadcast({ teamId: T, id: 'nope', input: {} }, p))).toBe(
      '404 Broadcast not found',
    );
  });
});

describe('sendBroadcast', () => {
  it('schedules a draft (record first, then its fan-out job)', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input }, p);
    await sendBroadcast({ teamId: T, id, input: { scheduled_at: '2030-01-02T00:00:00Z' } }, p);
    expect((await p.broadcasts.get(T, id))?.status).toBe('scheduled');
    expect(p.fanout.jobs.get(`${T}:${id}`)).toBe(Date.parse('2030-01-02T00:00:00Z'));
  });

  it('refuses a broadcast that is not a draft; a scheduled one gets its job back (lost in a crash)', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, send: true, scheduled_at: 'in 1 hour' } },
      p,
    );
    p.fanout.jobs.clear(); // as if the first send had died between its two writes
    expect(await refusal(sendBroadcast({ teamId: T, id, input: {} }, p))).toBe(
      '422 broadcast is scheduled (status scheduled) and cannot be sent: only a draft can be sent or scheduled',
    );
    expect(p.fanout.jobs.get(`${T}:${id}`)).toBe(NOW + 3_600_000);
    p.broadcasts.setStatus(T, id, 'sent');
    expect(await refusal(sendBroadcast({ teamId: T, id, input: {} }, p))).toMatch(
      /^422 broadcast was sent \(status sent\)/,
    );
    expect(await refusal(sendBroadcast({ teamId: T, id: 'nope', input: {} }, p))).toBe(
      '404 Broadcast not found',
    );
  });

  it('refuses a draft whose segment was deleted since', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input }, p);
    const empty = { ...p, segments: new MemorySegments() };
    expect(await refusal(sendBroadcast({ teamId: T, id, input: {} }, empty))).toBe(
      '422 segment_id: no such segment',
    );
    expect((await p.broadcasts.get(T, id))?.status).toBe('draft');
  });
});

describe('resumeBroadcast', () => {
  it('a paused broadcast is queued again and its fan-out job scheduled now; anything else is refused', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
    expect(await refusal(resumeBroadcast({ teamId: T, id }, p))).toBe(
      '422 broadcast is scheduled (status scheduled) and cannot be resumed: only a paused broadcast can be resumed',
    );
    await p.broadcasts.startFanout(T, id, NOW);
    expect((await p.broadcasts.pause(T, id, 'complaint rate over')).ok).toBe(true);
    p.fanout.jobs.clear();
    expect(await resumeBroadcast({ teamId: T, id }, p)).toEqual({ id });
    expect(await p.broadcasts.get(T, id)).toMatchObject({
      status: 'queued',
      paused_reason: 'complaint rate over',
    });
    expect([...p.fanout.jobs.keys()]).toEqual([`${T}:${id}`]);
    expect(await refusal(resumeBroadcast({ teamId: T, id }, p))).toMatch(
      /^422 broadcast is sending \(status queued\)/,
    );
  });

  it('a paused broadcast can be canceled', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
    await p.broadcasts.startFanout(T, id, NOW);
    await p.broadcasts.pause(T, id, 'hard-bounce rate over');
    await cancelBroadcast({ teamId: T, id }, p);
    expect((await p.broadcasts.get(T, id))?.status).toBe('canceled');
  });
});

describe('cancelBroadcast', () => {
  it('cancels a scheduled broadcast and drops its job; a draft or a sent one is refused', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, send: true, scheduled_at: 'in 1 hour' } },
      p,
    );
    await cancelBroadcast({ teamId: T, id }, p);
    expect((await p.broadcasts.get(T, id))?.status).toBe('canceled');
    expect(p.fanout.jobs.size).toBe(0);
    expect(await refusal(cancelBroadcast({ teamId: T, id }, p))).toBe(
      '422 broadcast was canceled (status canceled) and cannot be canceled: only a scheduled, sending or paused broadcast can be canceled',
    );
    const draft = await createBroadcast({ teamId: T, input }, p);
    expect(await refusal(cancelBroadcast({ teamId: T, id: draft.id }, p))).toMatch(
      /^422 broadcast is a draft/,
    );
  });

  it('cancels a sending one (its fan-out stops at the next checkpoint)', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
    await p.broadcasts.startFanout(T, id, NOW);
    p.fanout.running.add(`${T}:${id}`);
    await cancelBroadcast({ teamId: T, id }, p);
    expect((await p.broadcasts.get(T, id))?.status).toBe('canceled');
    expect(
      await p.broadcasts.checkpoint(
        T,
        id,
        { from: null, to: { score: 1, contactId: 'c' } },
        { total: 1, enqueued: 1, skipped: 0 },
      ),
    ).toBe('not_queued');
  });
});

describe('deleteBroadcast (spec 3.1, 4.2)', () => {
  it('removes a draft (no job to drop)', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input }, p);
    expect(await deleteBroadcast({ teamId: T, id }, p)).toEqual({ id });
    expect(await p.broadcasts.get(T, id)).toBeNull();
    expect(p.fanout.calls).toEqual([]);
  });

  it('removes a scheduled broadcast, then drops its fan-out job', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, send: true, scheduled_at: 'in 1 hour' } },
      p,
    );
    await deleteBroadcast({ teamId: T, id }, p);
    expect(await p.broadcasts.get(T, id)).toBeNull();
    expect(p.fanout.jobs.size).toBe(0);
    expect(p.broadcasts.writes.slice(-1)).toEqual(['remove']);
    expect(p.fanout.calls.slice(-1)).toEqual([`unschedule ${T}:${id}`]);
  });

  it('a job that could not be dropped is harmless: the fan-out finds no broadcast', async () => {
    const p = await ports();
    const { id } = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
    p.fanout.running.add(`${T}:${id}`);
    await deleteBroadcast({ teamId: T, id }, p);
    expect(p.fanout.jobs.has(`${T}:${id}`)).toBe(true);
    expect(await p.broadcasts.startFanout(T, id, NOW)).toEqual({ ok: false, reason: 'not_found' });
  });

  it('refuses a sending, sent or canceled broadcast with a 422 saying why, leaving it as it was', async () => {
    const p = await ports();
    for (const [status, words] of [
      ['queued', 'is sending'],
      ['sent', 'was sent'],
      ['canceled', 'was canceled'],
    ] as const) {
      const { id } = await createBroadcast({ teamId: T, input: { ...input, send: true } }, p);
      p.broadcasts.setStatus(T, id, status);
      const before = await p.broadcasts.get(T, id);
      expect(await refusal(deleteBroadcast({ teamId: T, id }, p))).toBe(
        `422 broadcast ${words} (status ${status}) and cannot be deleted: only a draft or a scheduled broadcast can be deleted`,
      );
      expect(await p.broadcasts.get(T, id)).toEqual(before);
      expect(p.fanout.jobs.has(`${T}:${id}`)).toBe(true);
    }
    expect(await refusal(deleteBroadcast({ teamId: T, id: 'nope' }, p))).toBe('404 Broadcast not found');
  });
});

describe('duplicateBroadcast', () => {
  it('a new draft with the same content, named "<name> (copy)" within 70 characters', async () => {
    const p = await ports();
    const { id } = await createBroadcast(
      { teamId: T, input: { ...input, name: 'x'.repeat(68), text: 'T', topic_id: p.topicId, send: true } },
      p,
    );
    const copy = await duplicateBroadcast({ teamId: T, id }, p);
    const [source, dup] = [await p.broadcasts.get(T, id), await p.broadcasts.get(T, copy.id)];
    expect(copy.id).not.toBe(id);
    expect(dup).toMatchObject({
      status: 'draft',
      scheduled_at: null,
      name: `${'x'.repeat(68)} (`,
      segment_id: source?.segment_id,
      topic_id: p.topicId,
      html: source?.html,
      text: 'T',
    });
    const unnamed = await createBroadcast({ teamId: T, input }, p);
    expect(
      (await p.broadcasts.get(T, (await duplicateBroadcast({ teamId: T, id: unnamed.id }, p)).id))?.name,
    ).toBeNull();
    expect(await refusal(duplicateBroadcast({ teamId: T, id: 'nope' }, p))).toBe('404 Broadcast not found');
  });
});

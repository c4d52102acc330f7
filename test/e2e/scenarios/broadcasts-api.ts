/**
 * The broadcasts API end to end with the official `resend` SDK (camelCase options: `segmentId`,
 * `audienceId`, `replyTo`, `previewText`, `topicId`, `scheduledAt`) against the whole stack and a
 * real SMTP sink: CRUD, validation errors, and DELETE exactly as spec 3.1 / 4.2 says — a draft
 * is removed; a scheduled broadcast is removed and not one of its emails is sent, even when the
 * DELETE races its due time; a sending or sent broadcast is refused with a 4xx that says why and
 * stays as it was.
 *
 * Shared by the single-node suite and a Redis Cluster suite: every script and pipeline these
 * scenarios reach must keep to one hash slot.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { BROADCAST_FANOUT_QUEUE } from '@petrel/contracts';
import { BroadcastsStore, Keys, createRedis, type RedisClient } from '@petrel/store';
import { waitUntil } from '@petrel/testing';
import { ok, type Stack } from '../helpers.js';

export function broadcastApiScenarios(current: () => Stack): void {
  let stack: Stack;
  let redis: RedisClient;
  let fanoutQueue: Queue;
  let teamId: string;
  beforeAll(async () => {
    stack = current();
    redis = createRedis(stack.redis.url);
    fanoutQueue = new Queue(BROADCAST_FANOUT_QUEUE, {
      connection: redis,
      prefix: new Keys(stack.prefix).bullPrefix(),
    });
    teamId = (await redis.smembers(new Keys(stack.prefix).teams()))[0]!;
  });
  beforeEach(() => {
    stack = current();
  });
  afterAll(async () => {
    await fanoutQueue?.close();
    await redis?.quit();
  });

  const FROM = 'Acme <news@acme.test>';
  let n = 0;
  const addr = (name: string): string => `${name}.${++n}@broadcasts.test`;

  async function segmentWith(...emails: string[]): Promise<string> {
    const { data, error } = await stack.resend.segments.create({ name: `Segment ${++n}` });
    expect(error).toBeNull();
    for (const email of emails) {
      const created = await stack.resend.contacts.create({ email, segments: [{ id: data!.id }] });
      expect(created.error).toBeNull();
    }
    return data!.id;
  }

  /** The messages the sink accepted for `address`. */
  const received = (address: string) => stack.sink.messages.filter((m) => m.envelope.to.includes(address));

  /**
   * Resolves once no fan-out job is pending and no send lane holds a job: everything the stack
   * was going to send for the broadcasts due so far is in the sink.
   */
  async function allSettled(): Promise<void> {
    await waitUntil(
      async () => {
        const counts = await fanoutQueue.getJobCounts('waiting', 'delayed', 'prioritized', 'active');
        return Object.values(counts).every((c) => c === 0);
      },
      { timeoutMs: 30_000, message: 'every fan-out job to end' },
    );
    await stack.drained(30_000);
  }

  async function create(options: Parameters<Stack['resend']['broadcasts']['create']>[0]): Promise<string> {
    const { data, error } = await stack.resend.broadcasts.create(options);
    expect(error).toBeNull();
    expect(data).toEqual({ object: 'broadcast', id: expect.any(String) });
    return data!.id;
  }

  describe('broadcasts: CRUD', () => {
    it('creates a draft, reads, lists, updates, duplicates and deletes it', async () => {
      const { resend } = stack;
      const segmentId = await segmentWith();
      const topic = await resend.topics.create({ name: `Topic ${++n}`, defaultSubscription: 'opt_in' });
      expect(topic.error).toBeNull();
      const id = await create({
        segmentId,
        from: FROM,
        subject: 'November news',
        html: '<p>Hi {{{contact.first_name|there}}}</p>',
        name: 'November',
        replyTo: 'reply@acme.test',
        previewText: 'What is new',
        topicId: topic.data!.id,
      });

      const got = await resend.broadcasts.get(id);
      expect(got.error).toBeNull();
      expect(got.data).toEqual({
        object: 'broadcast',
        id,
        name: 'November',
        segment_id: segmentId,
        audience_id: segmentId,
        from: FROM,
        subject: 'November news',
        reply_to: ['reply@acme.test'],
        preview_text: 'What is new',
        status: 'draft',
        created_at: expect.any(String),
        scheduled_at: null,
        sent_at: null,
        topic_id: topic.data!.id,
        html: '<p>Hi {{{contact.first_name|there}}}</p>',
        text: null,
        counts: { total: 0, enqueued: 0, skipped: 0 },
      });

      const listed = await resend.broadcasts.list();
      expect(listed.error).toBeNull();
      expect(listed.data).toMatchObject({ object: 'list', has_more: false });
      expect(listed.data!.data.find((b) => b.id === id)).toEqual({
        id,
        name: 'November',
        audience_id: segmentId,
        segment_id: segmentId,
        status: 'draft',
        created_at: got.data!.created_at,
        scheduled_at: null,
        sent_at: null,
        topic_id: topic.data!.id,
      });
      const second = await create({ segmentId, from: FROM, subject: 'Second', text: 'plain' });
      const page = await resend.broadcasts.list({ limit: 1 });
      expect(page.data).toMatchObject({ has_more: true, data: [{ id: second }] });
      const next = await resend.broadcasts.list({ limit: 1, after: second });
      expect(next.data).toMatchObject({ data: [{ id }] });

      const updated = await resend.broadcasts.update(id, {
        name: 'November (final)',
        subject: 'November news, final',
        text: 'Hi {{{contact.first_name|there}}}',
        topicId: null,
      });
      expect(updated.error).toBeNull();
      expect(updated.data).toEqual({ object: 'broadcast', id });
      expect((await resend.broadcasts.get(id)).data).toMatchObject({
        name: 'November (final)',
        subject: 'November news, final',
        text: 'Hi {{{contact.first_name|there}}}',
        html: '<p>Hi {{{contact.first_name|there}}}</p>',
        topic_id: null,
        reply_to: ['reply@acme.test'],
      });

      const dup = await resend.broadcasts.duplicate(id);
      expect(dup.error).toBeNull();
      expect(dup.data).toEqual({ object: 'broadcast', id: expect.any(String) });
      expect((await resend.broadcasts.get(dup.data!.id)).data).toMatchObject({
        name: 'November (final) (copy)',
        status: 'draft',
        segment_id: segmentId,
        subject: 'November news, final',
        html: '<p>Hi {{{contact.first_name|there}}}</p>',
        reply_to: ['reply@acme.test'],
      });

      const removed = await resend.broadcasts.remove(id);
      expect(removed.error).toBeNull();
      expect(removed.data).toEqual({ object: 'broadcast', id, deleted: true });
      const gone = await resend.broadcasts.get(id);
      expect(gone.error).toMatchObject({ statusCode: 404, name: 'not_found' });
      expect((await resend.broadcasts.remove(id)).error).toMatchObject({
        statusCode: 404,
        name: 'not_found',
      });
      expect((await resend.broadcasts.list()).data!.data.some((b) => b.id === id)).toBe(false);
    });

    it('takes the deprecated audienceId for the segment', async () => {
      const segmentId = await segmentWith();
      const id = await create({ audienceId: segmentId, from: FROM, subject: 'Legacy', text: 'Hi' });
      expect((await stack.resend.broadcasts.get(id)).data).toMatchObject({
        segment_id: segmentId,
        audience_id: segmentId,
      });
    });
  });

  describe('broadcasts: validation errors (422 naming the field)', () => {
    it('refuses bad creates, writing nothing', async () => {
      const segmentId = await segmentWith();
      const before = (await stack.resend.broadcasts.list()).data!.data.length;
      const refused = async (body: Record<string, unknown>) =>
        (await stack.http('/broadcasts', { method: 'POST', body: JSON.stringify(body) })).body;
      const ok = { segment_id: segmentId, from: FROM, subject: 'S', html: '<p>x</p>' };
      expect(await refused({ ...ok, from: undefined })).toEqual({
        statusCode: 422,
        name: 'validation_error',
        message: 'from: is required',
      });
      expect((await refused({ ...ok, from: 'not an address' })).message).toMatch(/^from: invalid address/);
      expect((await refused({ ...ok, segment_id: undefined })).message).toBe('segment_id: is required');
      expect((await refused({ ...ok, subject: 'a\nb' })).message).toMatch(
        /^subject: must not contain line breaks/,
      );
      expect((await refused({ ...ok, html: undefined })).message).toBe(
        'body: one of html or text is required',
      );
      expect((await refused({ ...ok, scheduled_at: 'in 1 hour' })).message).toBe(
        'scheduled_at: can only be used with send: true',
      );
      expect((await refused({ ...ok, reply_to: ['ok@x.test', 'nope'] })).message).toMatch(
        /^reply_to\[1\]: invalid address/,
      );

      // the same through the SDK: unknown segment and topic, bad scheduledAt
      const { resend } = stack;
      const unknown = '0198a0a0-0000-7000-8000-0000000000ff';
      const noSegment = await resend.broadcasts.create({
        segmentId: unknown,
        from: FROM,
        subject: 'S',
        html: 'x',
      });
      expect(noSegment.error).toEqual({
        statusCode: 422,
        name: 'validation_error',
        message: 'segment_id: no such segment',
      });
      const noTopic = await resend.broadcasts.create({
        segmentId,
        from: FROM,
        subject: 'S',
        html: 'x',
        topicId: unknown,
      });
      expect(noTopic.error?.message).toBe('topic_id: no such topic');
      const badTime = await resend.broadcasts.create({
        segmentId,
        from: FROM,
        subject: 'S',
        html: 'x',
        send: true,
        scheduledAt: 'someday',
      });
      expect(badTime.error?.message).toMatch(/^scheduled_at: must be an ISO 8601 date-time/);
      expect((await resend.broadcasts.list()).data!.data.length).toBe(before);
    });

    it('refuses changes the status does not allow, saying which status; 404 for unknown ids', async () => {
      const { resend } = stack;
      const segmentId = await segmentWith();
      const id = await create({
        segmentId,
        from: FROM,
        subject: 'S',
        html: 'x',
        send: true,
        scheduledAt: 'in 1 hour',
      });
      expect((await resend.broadcasts.get(id)).data).toMatchObject({ status: 'scheduled' });
      expect((await resend.broadcasts.update(id, { subject: 'late' })).error).toEqual({
        statusCode: 422,
        name: 'validation_error',
        message:
          'broadcast is scheduled (status scheduled) and cannot be updated: only a draft can be changed',
      });
      expect((await resend.broadcasts.send(id)).error?.message).toMatch(
        /^broadcast is scheduled \(status scheduled\) and cannot be sent/,
      );
      const draft = await create({ segmentId, from: FROM, subject: 'S', html: 'x' });
      expect((await resend.broadcasts.cancel(draft)).error?.message).toMatch(
        /^broadcast is a draft \(status draft\) and cannot be canceled/,
      );
      expect((await resend.broadcasts.update(draft, { from: 'nope' })).error?.message).toMatch(
        /^from: invalid address/,
      );
      expect(
        (await resend.broadcasts.send(draft, { scheduledAt: '2001-01-01T00:00:00Z' })).error?.message,
      ).toBe('scheduled_at: must be in the future');
      const unknown = '0198a0a0-0000-7000-8000-0000000000ff';
      for (const res of [
        await resend.broadcasts.get(unknown),
        await resend.broadcasts.update(unknown, { subject: 'x' }),
        await resend.broadcasts.send(unknown),
        await resend.broadcasts.cancel(unknown),
        await resend.broadcasts.duplicate(unknown),
        await resend.broadcasts.remove(unknown),
      ])
        expect(res.error).toEqual({ statusCode: 404, name: 'not_found', message: 'Broadcast not found' });
      // cancel what is scheduled: it then can be neither sent nor deleted
      expect((await resend.broadcasts.cancel(id)).data).toEqual({ object: 'broadcast', id });
      expect((await resend.broadcasts.remove(id)).error?.message).toMatch(
        /^broadcast was canceled \(status canceled\) and cannot be deleted/,
      );
    });
  });

  describe('DELETE /broadcasts/:id (spec 3.1, 4.2)', () => {
    it('a scheduled broadcast deleted before its time sends not one email after it', async () => {
      const { resend } = stack;
      const [a, b, control] = [addr('sched-a'), addr('sched-b'), addr('sched-control')];
      const doomed = await segmentWith(a, b);
      const kept = await segmentWith(control);
      const due = new Date(Date.now() + 2_000).toISOString();
      const id = await create({
        segmentId: doomed,
        from: FROM,
        subject: 'Doomed',
        html: 'x',
        send: true,
        scheduledAt: due,
      });
      // the control, due at the same time, shows the fan-out runs and sends at that time
      await create({
        segmentId: kept,
        from: FROM,
        subject: 'Control',
        html: 'x',
        send: true,
        scheduledAt: due,
      });
      expect((await resend.broadcasts.get(id)).data).toMatchObject({
        status: 'scheduled',
        scheduled_at: due,
      });

      expect((await resend.broadcasts.remove(id)).data).toEqual({ object: 'broadcast', id, deleted: true });
      expect((await resend.broadcasts.get(id)).error).toMatchObject({ statusCode: 404 });

      // the one wait on the clock: past the due time
      await waitUntil(() => Date.now() > Date.parse(due) + 500, {
        timeoutMs: 10_000,
        message: 'the due time',
      });
      await waitUntil(() => received(control).length > 0, {
        timeoutMs: 20_000,
        message: 'the control broadcast',
      });
      await allSettled();
      expect(received(a)).toHaveLength(0);
      expect(received(b)).toHaveLength(0);
      expect(received(control)).toHaveLength(1);
    });

    it('a sending (queued) or sent broadcast is refused with a 422 saying why, and stays as it was', async () => {
      const { resend } = stack;
      const to = addr('sent');
      const segmentId = await segmentWith(to);
      const id = await create({ segmentId, from: FROM, subject: 'Now', html: '<p>now</p>', send: true });
      await waitUntil(async () => (await resend.broadcasts.get(id)).data?.status === 'sent', {
        timeoutMs: 20_000,
        message: 'the broadcast to be sent',
      });
      await allSettled();
      expect(received(to)).toHaveLength(1);
      expect((await resend.broadcasts.get(id)).data).toMatchObject({
        status: 'sent',
        sent_at: expect.any(String),
        counts: { total: 1, enqueued: 1 },
      });
      // past draft and scheduled: DELETE is refused naming the status, and the broadcast is kept
      const undeletable = async (broadcastId: string, why: string) => {
        const before = ok(await resend.broadcasts.get(broadcastId));
        expect((await resend.broadcasts.remove(broadcastId)).error).toEqual({
          statusCode: 422,
          name: 'validation_error',
          message: `broadcast ${why} and cannot be deleted: only a draft or a scheduled broadcast can be deleted`,
        });
        expect((await resend.broadcasts.get(broadcastId)).data).toEqual(before);
      };
      await undeletable(id, 'was sent (status sent)');

      // `queued` lasts as long as a fan-out runs (milliseconds here): the broadcast is put in that
      // state by the store's own fan-out start, as the scheduler does at the due time
      const later = await create({
        segmentId,
        from: FROM,
        subject: 'Later',
        html: 'x',
        send: true,
        scheduledAt: 'in 1 hour',
      });
      const store = new BroadcastsStore(redis, new Keys(stack.prefix));
      expect(await store.startFanout(teamId, later, Date.now())).toMatchObject({ ok: true });
      await undeletable(later, 'is sending (status queued)');
      expect((await resend.broadcasts.cancel(later)).error).toBeNull();
    });

    it('50 deletes racing their broadcasts’ due time: a successful delete sends nothing, a refused one sends', async () => {
      const { resend } = stack;
      const cases = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const to = addr(`race-${i}`);
          const segmentId = await segmentWith(to);
          const id = await create({ segmentId, from: FROM, subject: `Race ${i}`, html: 'x' });
          return { i, to, id };
        }),
      );
      const dueMs = Date.now() + 3_000;
      const due = new Date(dueMs).toISOString();
      // the first one's due time a minute later: its DELETE comes before it whatever the 50
      // sends below cost a loaded machine (the won side of the race, shown without a margin)
      const later = new Date(dueMs + 60_000).toISOString();
      for (const c of cases)
        expect(
          (await resend.broadcasts.send(c.id, { scheduledAt: c.i === 0 ? later : due })).error,
        ).toBeNull();

      // 40 DELETEs 20 ms apart from 500 ms before the due time to 300 ms after it; the last 10
      // each the moment its fan-out has taken the broadcast (it left `scheduled`), however long
      // the 50 fan-outs due together take to start
      const at = (ms: number) =>
        new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));
      // (the SDK's status type lacks `scheduled`, which Resend's API reference lists)
      const started = (id: string) => async () =>
        ((await resend.broadcasts.get(id)).data?.status as string | undefined) !== 'scheduled';
      const outcomes = await Promise.all(
        cases.map(async (c) => {
          if (c.i < 40) await at(dueMs - 500 + c.i * 20);
          else await waitUntil(started(c.id), { timeoutMs: 30_000, intervalMs: 5, message: 'the fan-out' });
          const res = await resend.broadcasts.remove(c.id);
          return { ...c, deleted: res.error === null, error: res.error };
        }),
      );
      await allSettled();

      for (const o of outcomes) {
        if (o.deleted) {
          expect(received(o.to), `broadcast ${o.i} was deleted`).toHaveLength(0);
          expect((await resend.broadcasts.get(o.id)).error).toMatchObject({ statusCode: 404 });
        } else {
          expect(o.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
          expect(o.error?.message).toMatch(
            /^broadcast (is sending \(status queued\)|was sent \(status sent\)) and cannot be deleted/,
          );
          expect(received(o.to), `broadcast ${o.i} was refused deletion`).toHaveLength(1);
          expect((await resend.broadcasts.get(o.id)).data?.status).toBe('sent');
        }
      }
      // both sides of the race happened: a delete before the due time wins (the first, a minute
      // ahead of its own), one after the fan-out took the broadcast is refused
      expect(outcomes[0]!.deleted).toBe(true);
      expect(outcomes.slice(40).every((o) => !o.deleted)).toBe(true);
    });
  });
}

import { describe, expect, it } from 'vitest';
import { decodeLogId, encodeLogId } from '@petrel/core';
import { useStoreRedis } from './redis.fixture.js';
import { RequestLogsStore, RequestLogWriter, type FinishedRequest } from './request-logs.store.js';

const fx = useStoreRedis('request-logs');

const request = (teamId: string, i: number, over: Partial<FinishedRequest> = {}): FinishedRequest => ({
  teamId,
  method: 'POST',
  endpoint: '/emails',
  status: 200,
  userAgent: 'test-agent',
  createdMs: Date.now(),
  requestBody: { subject: `s${i}`, token: 're_shouldNeverBeStored0000000000' },
  responseBody: { id: `e${i}` },
  ...over,
});

const DAY = 86_400_000;

describe('RequestLogWriter and RequestLogsStore', () => {
  it('writes a tick of several teams, one entry per request, bodies redacted, each team apart', async () => {
    const writer = new RequestLogWriter(fx.redis, fx.keys, {
      retentionMs: DAY,
      maxEntries: 100,
      bodyMaxBytes: 4096,
    });
    const reader = new RequestLogsStore(fx.redis, fx.keys);
    for (let i = 0; i < 3; i++) writer.add(request('team-a', i));
    writer.add(request('team-b', 9, { method: 'GET', status: 404, userAgent: null, requestBody: undefined }));
    await writer.close();
    const a = await reader.page('team-a', { limit: 10 }, {}, 0);
    expect(a.hasMore).toBe(false);
    expect(a.items.map((s) => [s.method, s.endpoint, s.response_status, s.user_agent])).toEqual(
      Array(3).fill(['POST', '/emails', 200, 'test-agent']),
    );
    const newest = await reader.get('team-a', a.items[0]!.id, 0);
    expect(newest).toMatchObject({
      request_body: { subject: 's2', token: '[redacted]' },
      response_body: { id: 'e2' },
    });
    const [b] = (await reader.page('team-b', { limit: 10 }, {}, 0)).items;
    expect(b).toMatchObject({ method: 'GET', response_status: 404, user_agent: null });
    expect(await reader.get('team-b', b!.id, 0)).toMatchObject({ request_body: null });
    // one team's id is nothing in another's log, even at the same stream position
    expect(await reader.get('team-b', a.items[0]!.id, 0)).toBeNull();
    // the tag must match: the entry's own position under another tag is not found
    const { streamId, tag } = decodeLogId(b!.id)!;
    const otherTag = tag === '00000000000' ? '00000000001' : '00000000000';
    expect(await reader.get('team-b', encodeLogId(streamId, otherTag), 0)).toBeNull();
    expect(await reader.get('team-b', encodeLogId(streamId, tag), 0)).toMatchObject({ id: b!.id });
  });

  it('keeps about maxEntries per team, the summaries and their bodies alike, and expires the log', async () => {
    const writer = new RequestLogWriter(fx.redis, fx.keys, {
      retentionMs: DAY,
      maxEntries: 100,
      bodyMaxBytes: 256,
    });
    for (let i = 0; i < 450; i++) writer.add(request('team-cap', i));
    await writer.close();
    const summaries = await fx.redis.xlen(fx.keys.requestLogs('team-cap'));
    const bodies = await fx.redis.xlen(fx.keys.requestLogBodies('team-cap'));
    // MAXLEN ~ trims whole macro nodes (100 entries each by default): at most one node over
    expect(summaries).toBeGreaterThanOrEqual(100);
    expect(summaries).toBeLessThanOrEqual(200);
    expect(bodies).toBe(summaries);
    const ttl = await fx.redis.pttl(fx.keys.requestLogs('team-cap'));
    expect(ttl).toBeGreaterThan(DAY - 60_000);
    expect(ttl).toBeLessThanOrEqual(DAY);
    // the newest are the ones kept
    const reader = new RequestLogsStore(fx.redis, fx.keys);
    const first = (await reader.page('team-cap', { limit: 1 }, {}, 0)).items[0]!;
    expect(await reader.get('team-cap', first.id, 0)).toMatchObject({ request_body: { subject: 's449' } });
  });

  it('leaves out entries older than the cutoff, in pages and look-ups', async () => {
    const writer = new RequestLogWriter(fx.redis, fx.keys, {
      retentionMs: DAY,
      maxEntries: 100,
      bodyMaxBytes: 256,
    });
    writer.add(request('team-old', 1));
    await writer.close();
    const reader = new RequestLogsStore(fx.redis, fx.keys);
    const [entry] = (await reader.page('team-old', { limit: 5 }, {}, 0)).items;
    const future = Date.now() + 60_000;
    expect((await reader.page('team-old', { limit: 5 }, {}, future)).items).toEqual([]);
    expect(await reader.get('team-old', entry!.id, future)).toBeNull();
  });

  it('pages a filtered log past entries that do not match, in chunks', async () => {
    const writer = new RequestLogWriter(fx.redis, fx.keys, {
      retentionMs: DAY,
      maxEntries: 10_000,
      bodyMaxBytes: 256,
    });
    writer.add(request('team-f', 0, { status: 422 }));
    for (let i = 1; i <= 450; i++) writer.add(request('team-f', i));
    writer.add(request('team-f', 451, { status: 429 }));
    await writer.close();
    const reader = new RequestLogsStore(fx.redis, fx.keys);
    const page = await reader.page('team-f', { limit: 5 }, { status: { class: 4 } }, 0);
    expect(page.items.map((s) => s.response_status)).toEqual([429, 422]);
    expect(page.hasMore).toBe(false);
    const next = await reader.page(
      'team-f',
      { limit: 1, after: page.items[0]!.id },
      { status: { class: 4 } },
      0,
    );
    expect(next.items.map((s) => s.response_status)).toEqual([422]);
  });
});

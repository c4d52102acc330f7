import { describe, expect, it } from 'vitest';
import { startHttpReceiver } from './http-receiver.js';
import { stopAfterEach } from './stop-after-each.js';

const receiverWith = stopAfterEach(startHttpReceiver);

describe('startHttpReceiver', () => {
  it('records requests and answers 200 by default', async () => {
    const receiver = await receiverWith();
    const res = await fetch(`${receiver.url}/hooks?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      body: JSON.stringify({ type: 'email.sent' }),
    });
    expect(res.status).toBe(200);
    const [req] = await receiver.waitFor(1);
    expect(req).toMatchObject({ method: 'POST', path: '/hooks?x=1', body: '{"type":"email.sent"}' });
    expect(req?.headers['webhook-id']).toBe('msg_1');
    expect(req?.receivedAt).toBeGreaterThan(0);
    receiver.clear();
    expect(receiver.requests).toHaveLength(0);
  });

  it('answers by script: 500 three times then 200, with headers and delay', async () => {
    const receiver = await receiverWith({
      respond: (_req, n) =>
        n <= 3 ? { status: 500, body: 'boom' } : { status: 200, headers: { 'x-n': String(n) }, delayMs: 50 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await fetch(receiver.url, { method: 'POST', body: 'e' })).status);
    expect(statuses).toEqual([500, 500, 500, 200]);
    const t0 = Date.now();
    const res = await fetch(receiver.url);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(res.headers.get('x-n')).toBe('5');
    expect(receiver.requests).toHaveLength(5);
  });

  it('holds an answer until its `until` settles, while answering other requests', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const receiver = await receiverWith({
      respond: (_req, n) => (n === 1 ? { status: 201, until: held } : { status: 200 }),
    });
    let first: number | undefined;
    const pending = fetch(receiver.url).then((res) => (first = res.status));
    await receiver.waitFor(1);
    // a later request is answered while the first is held
    expect((await fetch(receiver.url)).status).toBe(200);
    expect(first).toBeUndefined();
    release();
    expect(await pending).toBe(201);
  });

  it('stops at once even with a delayed answer pending', async () => {
    const receiver = await receiverWith({ respond: () => ({ status: 200, delayMs: 60_000 }) });
    const pending = fetch(receiver.url).catch((err: unknown) => err);
    await receiver.waitFor(1);
    await receiver.stop();
    // an Error, not the 200 that waiting for the answer would have given: stop() cut the
    // connection instead of waiting the minute (which would also outlast the test's timeout)
    expect(await pending).toBeInstanceOf(Error);
  });
});

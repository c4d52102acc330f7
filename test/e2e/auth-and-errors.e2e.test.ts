/**
 * Foundation e2e: authentication, API-key CRUD and revocation, and the error shape of every
 * client mistake, driven with the official `resend` SDK where it can express the call.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { email, fileStack, otherTeam } from './helpers.js';

const stack = fileStack();

const errorShape = (body: any, status: number, name: string) => {
  expect(body).toEqual({ statusCode: status, name, message: expect.any(String) });
  expect(body.message.length).toBeGreaterThan(0);
};

describe('authentication', () => {
  it('answers 401 missing_api_key without an Authorization header', async () => {
    const res = await stack.http('/emails', { key: null });
    expect(res.status).toBe(401);
    errorShape(res.body, 401, 'missing_api_key');
  });

  it('answers 401 missing_api_key for a header that is not a bearer token', async () => {
    const res = await stack.http('/api-keys', { key: null, headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
    errorShape(res.body, 401, 'missing_api_key');
  });

  it('answers 403 invalid_api_key for an unknown key (SDK)', async () => {
    const bad = new Resend('re_not_a_real_key_at_all', { baseUrl: stack.baseUrl });
    const { data, error } = await bad.apiKeys.list();
    expect(data).toBeNull();
    expect(error).toMatchObject({ statusCode: 403, name: 'invalid_api_key' });
  });

  it('restricts a sending_access key to sending (SDK)', async () => {
    const created = await stack.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    expect(created.error).toBeNull();
    const sender = new Resend(created.data!.token, { baseUrl: stack.baseUrl });

    const sent = await sender.emails.send(email(1) as any);
    expect(sent.error).toBeNull();
    expect(sent.data?.id).toMatch(/^[0-9a-f-]{36}$/);
    const batch = await sender.batch.send([
      { from: 'a@acme.test', to: 'c@example.test', subject: 's', html: 'x' },
    ]);
    expect(batch.error).toBeNull();

    for (const call of [
      () => sender.apiKeys.list(),
      () => sender.emails.get(sent.data!.id),
      () => sender.emails.list(),
    ]) {
      const { error } = await call();
      expect(error).toMatchObject({ statusCode: 401, name: 'restricted_api_key' });
    }
  });
});

describe('api keys', () => {
  it('creates, lists, renames and deletes keys; the token is shown once and works at once', async () => {
    const { data, error } = await stack.resend.apiKeys.create({ name: 'ci' });
    expect(error).toBeNull();
    expect(data!.token).toMatch(/^re_/);
    const id = data!.id;

    const list = await stack.resend.apiKeys.list();
    const row = list.data!.data.find((k) => k.id === id)!;
    expect(row).toMatchObject({ id, name: 'ci', created_at: expect.any(String) });
    expect(JSON.stringify(list.data)).not.toContain(data!.token);

    const renamed = await stack.http(`/api-keys/${id}`, {
      method: 'PATCH',
      body: JSON.stringify({ name: 'ci-renamed' }),
    });
    expect(renamed).toMatchObject({ status: 200, body: { object: 'api_key', id } });
    const again = await stack.resend.apiKeys.list();
    expect(again.data!.data.find((k) => k.id === id)?.name).toBe('ci-renamed');

    const fresh = new Resend(data!.token, { baseUrl: stack.baseUrl });
    expect((await fresh.apiKeys.list()).error).toBeNull();

    const removed = await stack.resend.apiKeys.remove(id);
    expect(removed.error).toBeNull();
    expect(removed.data).toMatchObject({ object: 'api_key', id, deleted: true });
    // Revocation takes effect on the very next request.
    const after = await fresh.apiKeys.list();
    expect(after.error).toMatchObject({ statusCode: 403, name: 'invalid_api_key' });
  });

  it('validates key creation input and 404s unknown keys', async () => {
    const tooLong = await stack.resend.apiKeys.create({ name: 'x'.repeat(51) });
    expect(tooLong.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(tooLong.error!.message).toContain('name');
    const badPerm = await stack.http('/api-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'p', permission: 'root' }),
    });
    expect(badPerm.status).toBe(422);
    expect(badPerm.body.message).toContain('permission');
    const missing = await stack.resend.apiKeys.remove('01900000-0000-7000-8000-000000000000');
    expect(missing.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('never stores a raw token in Redis', async () => {
    const { data } = await stack.resend.apiKeys.create({ name: 'secret-check' });
    const { Redis } = await import('ioredis');
    const r = new Redis(stack.redis.url);
    const keys = await r.keys(`${stack.prefix}:*`);
    for (const k of keys) {
      const type = await r.type(k);
      const dump =
        type === 'hash' ? JSON.stringify(await r.hgetall(k)) : type === 'string' ? await r.get(k) : '';
      expect(dump ?? '').not.toContain(data!.token);
      expect(dump ?? '').not.toContain(stack.key);
    }
    await r.quit();
  });
});

describe('error shape', () => {
  it('malformed JSON → 400 with the error body', async () => {
    const res = await stack.http('/emails', { method: 'POST', body: '{"from": "a@b.test",' });
    expect(res.status).toBe(400);
    errorShape(res.body, 400, 'validation_error');
    expect(res.body.message).toMatch(/JSON/);
  });

  it('unknown route → 404 not_found', async () => {
    const res = await stack.http('/no-such-thing');
    expect(res.status).toBe(404);
    errorShape(res.body, 404, 'not_found');
  });

  it('wrong method on a known route → 405 method_not_allowed with Allow', async () => {
    const res = await stack.http('/emails/batch', { method: 'DELETE' });
    expect(res.status).toBe(405);
    errorShape(res.body, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
    const put = await stack.http('/api-keys', { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
  });

  it('wrong content type → 415 with the error body', async () => {
    const res = await stack.http('/emails', {
      method: 'POST',
      body: 'from=a',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    errorShape(res.body, 415, 'unsupported_media_type');
  });

  it('a body over the limit → 413, refused before the whole body is sent', async () => {
    const url = new URL(stack.baseUrl);
    const result = await new Promise<{ status: number; body: string; sentBytes: number }>(
      (resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/emails/batch',
            method: 'POST',
            headers: {
              authorization: `Bearer ${stack.key}`,
              'content-type': 'application/json',
              'content-length': String(100 * 1024 * 1024),
            },
          },
          (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sentBytes }));
          },
        );
        req.on('error', reject);
        // Announce 100 MB but send only 64 KB: the answer must come without the rest.
        let sentBytes = 0;
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        req.write(chunk);
        sentBytes += chunk.length;
      },
    );
    expect(result.status).toBe(413);
    errorShape(JSON.parse(result.body), 413, 'payload_too_large');
    expect(result.sentBytes).toBeLessThan(1024 * 1024);
  });

  it('a chunked body that grows past the limit → 413', async () => {
    const big = JSON.stringify([email(0, { html: 'x'.repeat(6 * 1024 * 1024) })]);
    const res = await stack.http('/emails/batch', { method: 'POST', body: big });
    expect(res.status).toBe(413);
    errorShape(res.body, 413, 'payload_too_large');
  });

  it('every 2xx carries a JSON body', async () => {
    const list = await stack.http('/api-keys');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', data: expect.any(Array), has_more: false });
    const health = await stack.http('/health', { key: null });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await stack.http('/ready', { key: null });
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('serves Prometheus metrics with the request histogram', async () => {
    // a route no series is zero-initialised for: its series exists only because this request ran
    expect((await stack.resend.apiKeys.list()).error).toBeNull();
    const text = await (await fetch(stack.metricsUrl)).text();
    const count = text.match(
      /^petrel_http_request_duration_seconds_count\{app="petrel",method="GET",route="\/api-keys",status="200"\} (\d+)$/m,
    );
    expect(Number(count?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('tenant isolation', () => {
  it("another team's key sees 404 for this team's email and keys", async () => {
    const { resend: other } = await otherTeam(stack, 'other');

    const mine = await stack.resend.emails.send(email(1) as any);
    expect((await other.emails.get(mine.data!.id)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
    expect((await other.emails.cancel(mine.data!.id)).error).toMatchObject({ statusCode: 404 });
    const myKeys = await stack.resend.apiKeys.list();
    const someKey = myKeys.data!.data[0]!.id;
    expect((await other.apiKeys.remove(someKey)).error).toMatchObject({ statusCode: 404 });
    expect((await other.emails.list()).data!.data.find((e) => e.id === mine.data!.id)).toBeUndefined();
  });
});

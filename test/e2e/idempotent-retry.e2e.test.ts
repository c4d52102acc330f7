/**
 * Idempotent retries of a scheduled send once its `scheduled_at` has passed (Resend's rule:
 * same key + same body within 24 h → the original response, nothing sent again), with the
 * official `resend` SDK against the whole stack, a real Redis and a real SMTP sink.
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { fileStack } from './helpers.js';

const stack = fileStack();

/** The same body on every call: a client retrying computes `scheduledAt` once. */
const body = (to: string, scheduledAt: string) => ({
  from: 'Acme <sender@acme.test>',
  to,
  subject: `Retry ${to}`,
  html: '<p>once</p>',
  scheduledAt,
});
/** Every email record of the team addressed to `to` (the stack is this file's alone). */
async function recordsTo(to: string): Promise<string[]> {
  const list = await stack.resend.emails.list({ limit: 100 });
  expect(list.error).toBeNull();
  expect(list.data!.has_more).toBe(false);
  return list.data!.data.filter((e) => e.to.includes(to)).map((e) => e.id);
}
/** Messages the sink received for the email `id` (Message-ID `<id@acme.test>`). */
const delivered = (id: string) => stack.sink.byMessageId(`<${id}@acme.test>`);

describe('idempotent retry after scheduled_at passed', () => {
  it('scheduled 2 s ahead, retried after it passed: same id, one record, delivered once', async () => {
    const to = 'ahead@example.test';
    const key = `ahead-${Date.now()}`;
    const email = body(to, new Date(Date.now() + 2_000).toISOString());
    const first = await stack.resend.emails.send(email, { idempotencyKey: key });
    expect(first.error).toBeNull();
    const id = first.data!.id;
    expect((await stack.resend.emails.get(id)).data?.last_event).toBe('scheduled');

    await waitUntil(() => delivered(id).length > 0, { timeoutMs: 15_000, message: 'scheduled email sent' });
    expect(Date.now()).toBeGreaterThan(Date.parse(email.scheduledAt));
    for (let i = 0; i < 3; i++) {
      const again = await stack.resend.emails.send(email, { idempotencyKey: key });
      expect(again.error).toBeNull();
      expect(again.data).toEqual({ id });
    }
    // a retry that queued a send (again, or under a new id) would have sent it by now
    await stack.drained();
    expect(await recordsTo(to)).toEqual([id]);
    expect(delivered(id)).toHaveLength(1);
    expect(stack.sink.messages.filter((m) => m.envelope.to.includes(to))).toHaveLength(1);
    expect((await stack.resend.emails.get(id)).data?.last_event).toBe('delivered');
  });

  it('retried once scheduled_at is past even the tolerated clock skew: the stored response, not a 422', async () => {
    // Validation tolerates a scheduled_at up to 60 s in the past (client clock skew). 56 s in
    // the past is accepted now (sent at once) and refused a few seconds later: the retry below
    // fails validation, so only the stored response can answer it.
    const to = 'skewed@example.test';
    const key = `skewed-${Date.now()}`;
    const scheduledAt = new Date(Date.now() - 56_000).toISOString();
    const email = body(to, scheduledAt);
    const first = await stack.resend.emails.send(email, { idempotencyKey: key });
    expect(first.error).toBeNull();
    const id = first.data!.id;
    await waitUntil(() => Date.now() > Date.parse(scheduledAt) + 60_000 + 500, {
      timeoutMs: 15_000,
      message: 'scheduled_at past the skew',
    });

    // The same body under a new key is refused now ...
    const fresh = await stack.resend.emails.send(email, { idempotencyKey: `${key}-new` });
    expect(fresh.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(fresh.error!.message).toMatch(/^scheduled_at: /);
    // ... and without a key ...
    const keyless = await stack.resend.emails.send(email);
    expect(keyless.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    // ... but the retry with the first key gets the first response.
    const again = await stack.resend.emails.send(email, { idempotencyKey: key });
    expect(again.error).toBeNull();
    expect(again.data).toEqual({ id });
    // Another body under the key is still a client's mistake: the validation error, as before.
    const changed = await stack.resend.emails.send({ ...email, subject: 'changed' }, { idempotencyKey: key });
    expect(changed.error).toMatchObject({ statusCode: 422, name: 'validation_error' });

    await waitUntil(() => delivered(id).length > 0, { timeoutMs: 15_000, message: 'email sent' });
    await stack.drained();
    expect(await recordsTo(to)).toEqual([id]);
    expect(delivered(id)).toHaveLength(1);
    expect(stack.sink.messages.filter((m) => m.envelope.to.includes(to))).toHaveLength(1);
  });
});

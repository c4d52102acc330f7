import { PetrelError } from '@petrel/contracts';
import { describe, expect, it } from 'vitest';
import {
  acceptEmails,
  type AcceptedEmail,
  type AcceptPorts,
  type AcceptRequest,
  type ClaimResult,
} from './accept-emails.js';

/** In-memory ports with the claim semantics of the Redis store (no lock expiry). */
function memoryPorts() {
  const keys = new Map<string, { fp: string; done?: { status: number; body: string } }>();
  const calls = { claim: 0, lookup: 0, commit: 0, release: 0 };
  const committed: AcceptedEmail[] = [];
  const outcomes: ClaimResult['outcome'][] = [];
  const ports: AcceptPorts = {
    async claim(teamId, key, fingerprint) {
      calls.claim++;
      const k = `${teamId}:${key}`;
      const rec = keys.get(k);
      if (!rec) {
        keys.set(k, { fp: fingerprint });
        return { outcome: 'proceed', token: k, startedMs: 1_000 };
      }
      if (rec.fp !== fingerprint) return { outcome: 'mismatch' };
      if (!rec.done) return { outcome: 'in_flight' };
      return { outcome: 'replay', ...rec.done };
    },
    async lookup(teamId, key, fingerprint) {
      calls.lookup++;
      const rec = keys.get(`${teamId}:${key}`);
      return rec && rec.fp === fingerprint ? rec.done : undefined;
    },
    async release(token) {
      calls.release++;
      keys.delete(token as string);
    },
    async prepare(_teamId, emails) {
      return { emails, errors: [] };
    },
    async commit(_teamId, emails, completion) {
      calls.commit++;
      committed.push(...emails);
      if (completion) keys.get(completion.token as string)!.done = completion;
    },
    fingerprint: (endpoint, body) => `${endpoint} ${JSON.stringify(body)}`,
    onIdempotency: (outcome) => outcomes.push(outcome),
  };
  return { ports, calls, committed, outcomes, keys };
}

const t0 = new Date('2026-11-21T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const scheduledBody = (over: Record<string, unknown> = {}) => ({
  from: 'Acme <hello@acme.example>',
  to: 'jane@example.com',
  subject: 'Later',
  html: '<p>Hi</p>',
  // A fixed instant 5 s after the first request, as a client computing it once would send it.
  scheduled_at: at(5_000).toISOString(),
  ...over,
});
const single = (body: unknown, now: Date, idempotencyKey?: string): AcceptRequest => ({
  teamId: 'team',
  endpoint: 'single',
  body,
  mode: 'strict',
  idempotencyKey,
  clock: { now: () => now.getTime() },
});
/** Long after scheduled_at, beyond the clock skew validation tolerates. */
const later = at(5_000 + 10 * 60_000);

async function refusal(p: Promise<unknown>): Promise<PetrelError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof PetrelError) return err;
    throw err;
  }
  throw new Error('expected a PetrelError');
}

describe('acceptEmails: idempotent retry after scheduled_at passed', () => {
  it('replays the stored response instead of refusing scheduled_at, and commits nothing more', async () => {
    const m = memoryPorts();
    const first = await acceptEmails(single(scheduledBody(), t0, 'order-1'), m.ports);
    expect(first).toMatchObject({ status: 200, replayed: false, accepted: 1 });
    expect(m.committed).toHaveLength(1);
    expect(m.committed[0]).toMatchObject({ status: 'scheduled', delayMs: 5_000 });

    // The body alone would now be refused: scheduled_at lies in the past.
    const fresh = await refusal(acceptEmails(single(scheduledBody(), later), m.ports));
    expect(fresh.message).toMatch(/^scheduled_at: /);

    const again = await acceptEmails(single(scheduledBody(), later, 'order-1'), m.ports);
    expect(again).toEqual({ status: 200, body: first.body, replayed: true, accepted: 0 });
    expect(JSON.parse(again.body)).toEqual({ id: m.committed[0]!.id });
    expect(m.calls).toMatchObject({ claim: 1, commit: 1, lookup: 1, release: 0 });
    expect(m.outcomes).toEqual(['proceed', 'replay']);
  });

  it('still refuses when the key holds another body (the validation error, not a conflict)', async () => {
    const m = memoryPorts();
    await acceptEmails(single(scheduledBody(), t0, 'order-2'), m.ports);
    const err = await refusal(
      acceptEmails(single(scheduledBody({ subject: 'Other' }), later, 'order-2'), m.ports),
    );
    expect(err.errorName).toBe('validation_error');
    expect(err.message).toMatch(/^scheduled_at: /);
    expect(m.calls).toMatchObject({ claim: 1, commit: 1, lookup: 1 });
  });

  it('still refuses when the key is unknown, and does not claim it', async () => {
    const m = memoryPorts();
    const err = await refusal(acceptEmails(single(scheduledBody(), later, 'never-seen'), m.ports));
    expect(err.errorName).toBe('validation_error');
    expect(m.calls).toMatchObject({ claim: 0, lookup: 1, commit: 0 });
    expect(m.keys.size).toBe(0);
    expect(m.outcomes).toEqual([]);
  });

  it('still refuses when the first request is in flight, and leaves its claim alone', async () => {
    const m = memoryPorts();
    const fp = m.ports.fingerprint('single', scheduledBody());
    expect((await m.ports.claim('team', 'busy', fp)).outcome).toBe('proceed');
    const err = await refusal(acceptEmails(single(scheduledBody(), later, 'busy'), m.ports));
    expect(err.errorName).toBe('validation_error');
    expect(m.keys.get('team:busy')).toEqual({ fp });
  });

  it('a key is per team: another team with the same key and body is refused', async () => {
    const m = memoryPorts();
    await acceptEmails(single(scheduledBody(), t0, 'shared'), m.ports);
    const err = await refusal(
      acceptEmails({ ...single(scheduledBody(), later, 'shared'), teamId: 'other' }, m.ports),
    );
    expect(err.errorName).toBe('validation_error');
  });

  it('replays a batch the same way: a completed key answers for its body, valid now or not', async () => {
    const m = memoryPorts();
    // Refused today (strict: one bad email rejects the batch); say the rules were looser when
    // the first request completed under this key.
    const body = [scheduledBody({ scheduled_at: undefined }), { from: 'x' }];
    const stored = { status: 200, body: '{"data":[{"id":"a"},{"id":"b"}]}' };
    m.keys.set('team:batch-1', { fp: m.ports.fingerprint('batch', body), done: stored });
    const req: AcceptRequest = { ...single(body, t0, 'batch-1'), endpoint: 'batch' };
    expect(await acceptEmails(req, m.ports)).toEqual({ ...stored, replayed: true, accepted: 0 });
    const other = await refusal(acceptEmails({ ...req, body: [body[1]] }, m.ports));
    expect(other.message).toMatch(/^emails\[0\]\.from: /);
    expect(m.calls).toMatchObject({ claim: 0, commit: 0, lookup: 2 });
  });
});

describe('acceptEmails: the fast path has no extra lookup', () => {
  it('a valid request with a key claims once and never peeks', async () => {
    const m = memoryPorts();
    await acceptEmails(single(scheduledBody(), t0, 'k'), m.ports);
    await acceptEmails(single(scheduledBody(), at(1_000), 'k'), m.ports); // still valid: replay by claim
    expect(m.calls).toMatchObject({ claim: 2, lookup: 0, commit: 1 });
    expect(m.outcomes).toEqual(['proceed', 'replay']);
  });

  it('an invalid request without a key is refused without touching the store', async () => {
    const m = memoryPorts();
    const err = await refusal(acceptEmails(single(scheduledBody({ to: '<a@evil.test>' }), t0), m.ports));
    expect(err.message).toMatch(/^to: invalid address \(angle brackets without a display name/);
    expect(m.calls).toEqual({ claim: 0, lookup: 0, commit: 0, release: 0 });
  });

  it('an invalid Idempotency-Key is refused before anything else', async () => {
    const m = memoryPorts();
    const err = await refusal(acceptEmails(single(scheduledBody(), later, ''), m.ports));
    expect(err.errorName).toBe('invalid_idempotency_key');
    expect(m.calls.lookup).toBe(0);
  });
});

/**
 * The contract of core's WebhooksPort and WebhookEventLogPort (packages/core/src/webhooks/ports.ts),
 * run against the in-memory port and the Redis store: endpoints (newest first, by id in any case,
 * per team), their status and secret changes, and an event log entry's life — written once,
 * attempted, finished, replayed — with the endpoint's health.
 */
import { expect, it } from 'vitest';
import {
  newId,
  newWebhookEndpoint,
  type AttemptRecord,
  type WebhookEndpoint,
  type WebhookEventLogPort,
  type WebhooksPort,
} from '@petrel/core';
import { UNKNOWN_ID, describePortContract, type MakePort, type TickingClock } from './kit.js';

export type WebhooksContractPort = WebhooksPort & WebhookEventLogPort;

function endpoint(clock: TickingClock, url = 'https://hooks.example.test/a'): WebhookEndpoint {
  const nowMs = clock.now();
  return newWebhookEndpoint({
    id: newId(nowMs),
    endpoint: url,
    events: ['email.sent'],
    created_at: new Date(nowMs).toISOString(),
    secret: 'whsec_first',
  });
}

const attempt = (status: AttemptRecord['status'], health: AttemptRecord['health']): AttemptRecord => ({
  attempt: {
    id: newId(),
    http_status_code: 500,
    response: 'no',
    sent_at: '2030-01-01T00:00:00.000Z',
    latency_ms: 3,
  },
  status,
  nextAttemptMs: status === 'pending' ? 99 : null,
  health,
});

export function describeWebhooksContract(name: string, makePort: MakePort<WebhooksContractPort>): void {
  // the endpoints' creation times come from this clock; the port's own from its
  const clock = {
    now: (
      (t) => () =>
        t++
    )(Date.parse('2030-01-01T00:00:00.000Z')),
  };
  describePortContract(`WebhooksPort and WebhookEventLogPort contract: ${name}`, makePort, (setup) => {
    it('endpoints: created, read by id in any case, all() newest first and counted, per team', async () => {
      const { port, team, other } = setup();
      const a = endpoint(clock);
      const b = endpoint(clock, 'https://hooks.example.test/b');
      await port.create(team, a);
      await port.create(team, b);
      expect(await port.get(team, a.id)).toEqual(a);
      expect(await port.get(team, a.id.toUpperCase())).toEqual(a);
      expect(await port.get(team, UNKNOWN_ID)).toBeNull();
      expect(await port.all(team)).toEqual([b, a]);
      expect(await port.count(team)).toBe(2);
      expect(await port.get(other, a.id)).toBeNull();
      expect(await port.all(other)).toEqual([]);
      expect(await port.count(other)).toBe(0);
    });

    it('update applies the patch; enabling clears the failure; unknown or foreign is false', async () => {
      const { port, team, other } = setup();
      const w = {
        ...endpoint(clock),
        status: 'disabled' as const,
        failing_since_ms: 5,
        disabled_reason: 'x',
      };
      await port.create(team, w);
      expect(
        await port.update(team, w.id, { events: ['email.bounced'], endpoint: 'https://h.example.test/n' }),
      ).toBe(true);
      expect(await port.get(team, w.id)).toMatchObject({
        events: ['email.bounced'],
        endpoint: 'https://h.example.test/n',
        status: 'disabled',
        failing_since_ms: 5,
      });
      expect(await port.update(team, w.id.toUpperCase(), { status: 'enabled' })).toBe(true);
      expect(await port.get(team, w.id)).toMatchObject({
        status: 'enabled',
        failing_since_ms: null,
        disabled_reason: null,
      });
      expect(await port.update(team, UNKNOWN_ID, { status: 'disabled' })).toBe(false);
      expect(await port.update(other, w.id, { status: 'disabled' })).toBe(false);
      expect(await port.get(team, w.id)).toMatchObject({ status: 'enabled' });
    });

    it('rotateSecret keeps the old secret until it expires; delete once; both false when gone', async () => {
      const { port, team, other } = setup();
      const w = endpoint(clock);
      await port.create(team, w);
      expect(await port.rotateSecret(other, w.id, 'whsec_x', 1)).toBe(false);
      expect(await port.rotateSecret(team, w.id, 'whsec_second', 1_000)).toBe(true);
      expect(await port.get(team, w.id)).toMatchObject({
        secret: 'whsec_second',
        previous_secret: 'whsec_first',
        previous_secret_expires_ms: 1_000,
      });
      expect(await port.delete(other, w.id)).toBe(false);
      expect(await port.delete(team, w.id.toUpperCase())).toBe(true);
      expect(await port.delete(team, w.id)).toBe(false);
      expect(await port.get(team, w.id)).toBeNull();
      expect(await port.count(team)).toBe(0);
      expect(await port.rotateSecret(team, w.id, 'whsec_x', 1)).toBe(false);
    });

    it('an event entry is written once: new, then due while unfinished, finished once it succeeded; a replay starts it again', async () => {
      const { port, team } = setup();
      const w = endpoint(clock);
      await port.create(team, w);
      const e = {
        endpointId: w.id,
        id: newId(),
        type: 'email.sent',
        created_at: w.created_at,
        payload: '{"a":1}',
      };
      const nowMs = Date.parse(w.created_at);
      expect(await port.addEvents(team, [e], nowMs)).toEqual(['new']);
      expect(await port.getEvent(team, w.id, e.id)).toMatchObject({
        id: e.id,
        type: 'email.sent',
        status: 'pending',
        payload: '{"a":1}',
        run_attempts: 0,
        replays: 0,
      });
      expect(await port.addEvents(team, [{ ...e, payload: 'changed' }], nowMs)).toEqual(['due']);
      const begun = await port.beginAttempt(team, w.id, e.id);
      expect(begun).toMatchObject({ endpoint: { id: w.id }, entry: { status: 'pending' } });
      expect(await port.getEvent(team, w.id, e.id)).toMatchObject({
        status: 'attempting',
        payload: '{"a":1}',
      });
      expect(
        await port.recordAttempt(team, w.id, e.id, attempt('pending', { kind: 'failing', sinceMs: 7 })),
      ).toBe('recorded');
      expect(await port.getEvent(team, w.id, e.id)).toMatchObject({
        status: 'pending',
        next_attempt_ms: 99,
        run_attempts: 1,
      });
      expect(await port.get(team, w.id)).toMatchObject({ failing_since_ms: 7 });
      expect(await port.recordAttempt(team, w.id, e.id, attempt('success', { kind: 'healthy' }))).toBe(
        'recorded',
      );
      expect(await port.get(team, w.id)).toMatchObject({ failing_since_ms: null, status: 'enabled' });
      expect(await port.addEvents(team, [e], nowMs)).toEqual(['finished']);
      // a finished entry is not attempted again
      await port.beginAttempt(team, w.id, e.id);
      expect(await port.getEvent(team, w.id, e.id)).toMatchObject({ status: 'success', run_attempts: 2 });
      expect(await port.startReplay(team, w.id, e.id)).toBe(1);
      expect(await port.getEvent(team, w.id, e.id)).toMatchObject({
        status: 'pending',
        run_attempts: 0,
        replays: 1,
      });
      expect(await port.startReplay(team, w.id, UNKNOWN_ID)).toBeNull();
      expect(await port.getEvent(team, w.id, UNKNOWN_ID)).toBeNull();
    });

    it('an attempt that disables the endpoint says so once; a disabled endpoint fails its due entries', async () => {
      const { port, team, other } = setup();
      const w = endpoint(clock);
      await port.create(team, w);
      const nowMs = Date.parse(w.created_at);
      const e1 = {
        endpointId: w.id,
        id: newId(),
        type: 'email.sent',
        created_at: w.created_at,
        payload: '1',
      };
      const e2 = { ...e1, id: newId(), payload: '2' };
      expect(await port.addEvents(team, [e1, e2], nowMs)).toEqual(['new', 'new']);
      await port.beginAttempt(team, w.id, e1.id);
      const disable = { kind: 'disable' as const, reason: 'failing for 5 days', sinceMs: 1 };
      expect(await port.recordAttempt(team, w.id, e1.id, attempt('failed', disable))).toBe('disabled');
      expect(await port.get(team, w.id)).toMatchObject({
        status: 'disabled',
        disabled_reason: 'failing for 5 days',
      });
      const begun = await port.beginAttempt(team, w.id, e2.id);
      expect(begun).toMatchObject({ endpoint: { status: 'disabled' }, entry: { status: 'pending' } });
      expect(await port.getEvent(team, w.id, e2.id)).toMatchObject({
        status: 'failed',
        next_attempt_ms: null,
      });
      expect(await port.recordAttempt(team, w.id, e2.id, attempt('failed', disable))).toBe('recorded');
      // another team sees neither the endpoint nor its log
      expect(await port.beginAttempt(other, w.id, e1.id)).toEqual({ endpoint: null, entry: null });
      expect(await port.getEvent(other, w.id, e1.id)).toBeNull();
      expect(await port.recordAttempt(other, w.id, e1.id, attempt('success', { kind: 'healthy' }))).toBe(
        'gone',
      );
    });
  });
}

import { describe, expect, it } from 'vitest';
import { newId, validateAutomationGraph, type NewRun } from '@petrel/core';
import { AutomationsStore } from './automations.store.js';
import { AutomationRunsStore } from './automations.runs.store.js';
import { useStoreRedis, nextTeam } from './redis.fixture.js';

const fx = useStoreRedis('automations');

const graph = validateAutomationGraph({
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
    { key: 'w', type: 'wait_for_event', config: { event_name: 'order.paid', timeout: 'PT1S' } },
    { key: 'a', type: 'contact_delete', config: {} },
    { key: 'b', type: 'contact_delete', config: {} },
  ],
  connections: [
    { from: 'start', to: 'w' },
    { from: 'w', to: 'a', type: 'event_received' },
    { from: 'w', to: 'b', type: 'timeout' },
  ],
});

function newRun(automationId: string): NewRun {
  return {
    id: newId(),
    automationId,
    contactId: 'contact-1',
    event: { id: newId(), name: 'user.signed_up', payload: { plan: 'pro' } },
    graph,
    firstStep: { key: 'start', type: 'trigger' },
  };
}

describe('AutomationsStore', () => {
  it('creates, reads, lists by status, moves the trigger on update, deletes', async () => {
    const store = new AutomationsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const { id } = await store.create(t, { name: 'Welcome', status: 'enabled', graph });
    const other = await store.create(t, { name: 'Other', status: 'disabled', graph });
    expect((await store.get(t, id))?.graph).toEqual(graph);
    expect((await store.triggeredBy(t, 'user.signed_up')).map((a) => a.id)).toEqual([id]);
    expect((await store.list(t, { limit: 10 }, 'disabled'))?.items.map((a) => a.id)).toEqual([other.id]);
    const page = await store.list(t, { limit: 1 });
    expect(page).toMatchObject({ hasMore: true, items: [{ id: other.id }] });
    expect((await store.list(t, { limit: 1, after: other.id }))?.items.map((a) => a.id)).toEqual([id]);
    expect(await store.list(t, { limit: 1, after: newId() })).toBeNull();

    const moved = validateAutomationGraph({
      steps: [{ key: 's', type: 'trigger', config: { event_name: 'order.paid' } }],
      connections: [],
    });
    expect(await store.update(t, id, { graph: moved, name: 'Renamed' })).toBe(true);
    expect(await store.triggeredBy(t, 'user.signed_up')).toEqual([]);
    expect((await store.triggeredBy(t, 'order.paid')).map((a) => a.name)).toEqual(['Renamed']);
    expect(await store.update(t, id, { status: 'disabled' })).toBe(true);
    expect(await store.triggeredBy(t, 'order.paid')).toEqual([]);
    expect(await store.remove(t, id)).toBe(true);
    expect(await store.remove(t, id)).toBe(false);
    expect(await store.get(t, id)).toBeNull();
    expect(await store.update(t, newId(), { name: 'x' })).toBe(false);
  });
});

describe('AutomationRunsStore', () => {
  it('creates a run once, completes steps once, and ends a wait once (event or timeout)', async () => {
    const runs = new AutomationRunsStore(fx.redis, fx.keys, 60_000);
    const t = nextTeam();
    const run = newRun('auto-1');
    expect(await runs.createRun(t, run, 1000)).toBe(true);
    expect(await runs.createRun(t, run, 1000)).toBe(false);

    const next = [{ key: 'w', type: 'wait_for_event' }];
    const first = await runs.completeStep(
      t,
      run.id,
      { key: 'start', exit: 'default', output: {} },
      next,
      2000,
    );
    expect(first).toEqual({ applied: true, runCompleted: false });
    expect(
      await runs.completeStep(t, run.id, { key: 'start', exit: 'default', output: {} }, next, 2000),
    ).toEqual({
      applied: false,
      runCompleted: false,
    });

    const wait = { contactId: 'contact-1', eventName: 'order.paid' };
    expect(await runs.parkStep(t, run.id, 'w', { timeout_at: 'x' }, wait, 3000)).toBe(true);
    expect(await runs.waiting(t, 'contact-1', 'order.paid')).toEqual([{ runId: run.id, stepKey: 'w' }]);

    const event = { kind: 'event', eventId: 'e1', eventName: 'order.paid', payload: { total: 5 } } as const;
    const [a, b] = await Promise.all([
      runs.resolveWait(t, run.id, 'w', event, [{ key: 'a', type: 'contact_delete' }], 4000),
      runs.resolveWait(t, run.id, 'w', { kind: 'timeout' }, [{ key: 'b', type: 'contact_delete' }], 4000),
    ]);
    expect([a.won, b.won].filter(Boolean)).toHaveLength(1);
    // a timeout leaves the wait set at once; an event's dispatch removes the entry itself
    expect(await runs.waiting(t, 'contact-1', 'order.paid')).toEqual(
      a.won ? [{ runId: run.id, stepKey: 'w' }] : [],
    );
    await runs.dropWait(t, 'contact-1', 'order.paid', run.id, 'w');
    expect(await runs.waiting(t, 'contact-1', 'order.paid')).toEqual([]);

    const state = await runs.getRun(t, run.id);
    const winner = a.won ? 'a' : 'b';
    expect(state?.steps.w).toMatchObject({ status: 'completed', exit: a.won ? 'event_received' : 'timeout' });
    expect(Object.keys(state!.steps).sort()).toEqual(['start', 'w', winner].sort());
    if (a.won) expect(state?.waitEvents).toEqual({ 'order.paid': { total: 5 } });

    expect(await runs.startStep(t, run.id, winner, 5000)).toBe(true);
    const last = await runs.completeStep(t, run.id, { key: winner, exit: 'default', output: {} }, [], 6000);
    expect(last).toEqual({ applied: true, runCompleted: true });
    const done = await runs.getRun(t, run.id);
    expect(done).toMatchObject({ status: 'completed', completed_at: new Date(6000).toISOString() });
    expect(await fx.redis.pttl(fx.keys.automationRun(t, run.id))).toBeGreaterThan(0);
    expect((await runs.listRuns(t, 'auto-1', { limit: 10 }, ['completed']))?.items.map((r) => r.id)).toEqual([
      run.id,
    ]);
    expect((await runs.listRuns(t, 'auto-1', { limit: 10 }, ['running']))?.items).toEqual([]);
  });

  it('cancels running runs with their waits; a cancelled run moves no more', async () => {
    const runs = new AutomationRunsStore(fx.redis, fx.keys, 60_000);
    const t = nextTeam();
    const run = newRun('auto-2');
    await runs.createRun(t, run, 1000);
    await runs.completeStep(
      t,
      run.id,
      { key: 'start', exit: 'default', output: {} },
      [{ key: 'w', type: 'wait_for_event' }],
      2000,
    );
    await runs.parkStep(t, run.id, 'w', {}, { contactId: 'contact-1', eventName: 'order.paid' }, 3000);
    expect(await runs.cancelRuns(t, 'auto-2', 4000)).toBe(1);
    expect(await runs.cancelRuns(t, 'auto-2', 4000)).toBe(0);
    expect((await runs.getRun(t, run.id))?.status).toBe('cancelled');
    expect(await runs.waiting(t, 'contact-1', 'order.paid')).toEqual([]);
    expect((await runs.resolveWait(t, run.id, 'w', { kind: 'timeout' }, [], 5000)).won).toBe(false);
    expect(await runs.failStep(t, run.id, 'w', { message: 'x' }, 5000)).toBe(false);
    await runs.forgetRuns(t, 'auto-2');
    expect(await fx.redis.exists(fx.keys.automationRuns(t, 'auto-2'))).toBe(0);
    expect((await runs.listRuns(t, 'auto-2', { limit: 10 }))?.items).toEqual([]);
  });

  it("pages an automation's runs, newest first, with and without a status filter", async () => {
    const runs = new AutomationRunsStore(fx.redis, fx.keys, 60_000);
    const t = nextTeam();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = { ...newRun('auto-4'), id: newId(1_000 + i) };
      await runs.createRun(t, run, 1_000 + i);
      made.unshift(run.id);
    }
    await runs.failStep(t, made[1]!, 'start', { message: 'x' }, 5_000);
    const first = await runs.listRuns(t, 'auto-4', { limit: 2 });
    expect(first).toMatchObject({
      hasMore: true,
      items: [{ id: made[0] }, { id: made[1], status: 'failed' }],
    });
    expect((await runs.listRuns(t, 'auto-4', { limit: 2, after: made[1] }))?.items.map((r) => r.id)).toEqual([
      made[2],
    ]);
    expect((await runs.listRuns(t, 'auto-4', { limit: 5 }, ['running']))?.items.map((r) => r.id)).toEqual([
      made[0],
      made[2],
    ]);
    expect(await runs.listRuns(t, 'auto-4', { limit: 2, after: newId() })).toBeNull();
  });

  it('fails a run with its step', async () => {
    const runs = new AutomationRunsStore(fx.redis, fx.keys, 0);
    const t = nextTeam();
    const run = newRun('auto-3');
    await runs.createRun(t, run, 1000);
    expect(await runs.failStep(t, run.id, 'start', { message: 'boom' }, 2000)).toBe(true);
    const state = await runs.getRun(t, run.id);
    expect(state).toMatchObject({
      status: 'failed',
      steps: { start: { status: 'failed', error: { message: 'boom' } } },
    });
  });
});

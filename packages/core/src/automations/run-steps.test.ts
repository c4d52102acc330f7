import { describe, expect, it } from 'vitest';
import type { RunState } from './ports.js';
import { runStepRecords } from './run-steps.js';

const run = (over: Partial<RunState>): RunState => ({
  id: 'run_1',
  automationId: 'aut_1',
  contactId: 'c_1',
  status: 'running',
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  completed_at: null,
  event: { id: 'ev_1', name: 'signed_up', payload: {} },
  graph: {
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'signed_up' } },
      { key: 'pause', type: 'delay', config: { duration: 'PT1H' } },
      { key: 'bye', type: 'contact_delete', config: {} },
    ],
    connections: [
      { from: 'start', to: 'pause', type: 'default' },
      { from: 'pause', to: 'bye', type: 'default' },
    ],
  },
  steps: {
    start: {
      key: 'start',
      type: 'trigger',
      status: 'completed',
      output: null,
      error: null,
      started_at: '2026-01-01T00:00:00.000Z',
      completed_at: '2026-01-01T00:00:01.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
      exit: 'default',
    },
  },
  waitEvents: {},
  ...over,
});

describe('runStepRecords', () => {
  it('a running run shows the steps it scheduled, in graph order, without the branch taken', () => {
    const steps = runStepRecords(run({}));
    expect(steps.map((s) => [s.key, s.status])).toEqual([['start', 'completed']]);
    expect(steps[0]).not.toHaveProperty('exit');
  });

  it('a run that is over shows the steps it never reached as skipped, dated when it ended', () => {
    const steps = runStepRecords(run({ status: 'cancelled', completed_at: '2026-01-01T00:10:00.000Z' }));
    expect(steps.map((s) => [s.key, s.status])).toEqual([
      ['start', 'completed'],
      ['pause', 'skipped'],
      ['bye', 'skipped'],
    ]);
    expect(steps[2]).toEqual({
      key: 'bye',
      type: 'contact_delete',
      status: 'skipped',
      output: null,
      error: null,
      started_at: null,
      completed_at: null,
      created_at: '2026-01-01T00:10:00.000Z',
    });
  });
});

import type { AutomationRunStepRecord } from '@petrel/contracts';
import type { RunState } from './ports.js';

/**
 * A run's steps as GET /automations/:id/runs/:runId shows them, in graph order: each step's
 * record once it was scheduled (without the engine's branch taken); a run that is over never
 * schedules another step, so the steps it did not reach are `skipped`, dated when it ended.
 */
export function runStepRecords(run: RunState): AutomationRunStepRecord[] {
  const over = run.status !== 'running';
  return run.graph.steps.flatMap((s): AutomationRunStepRecord[] => {
    const rec = run.steps[s.key];
    if (rec) {
      const { exit: _exit, ...record } = rec;
      return [record];
    }
    if (!over) return [];
    return [
      {
        key: s.key,
        type: s.type,
        status: 'skipped',
        output: null,
        error: null,
        started_at: null,
        completed_at: null,
        created_at: run.completed_at ?? run.created_at,
      },
    ];
  });
}

/** Automations and their runs in the wire shapes of Resend's automations API. */
import type { AutomationListItem, AutomationRecord, AutomationRunRecord } from '@petrel/contracts';
import { runStepRecords, type RunState, type StoredAutomation } from '@petrel/core';

export function automationToWire(a: StoredAutomation): AutomationRecord {
  return {
    object: 'automation',
    id: a.id,
    name: a.name,
    status: a.status,
    created_at: a.created_at,
    updated_at: a.updated_at,
    steps: a.graph.steps,
    connections: a.graph.connections,
  };
}

export const automationListItem = (a: StoredAutomation): AutomationListItem => ({
  id: a.id,
  name: a.name,
  status: a.status,
  created_at: a.created_at,
  updated_at: a.updated_at,
});

/** A run with its steps in graph order (core's runStepRecords: unreached steps of a finished run are skipped). */
export function runToWire(run: RunState): AutomationRunRecord {
  return {
    object: 'automation_run',
    id: run.id,
    status: run.status,
    started_at: run.started_at,
    completed_at: run.completed_at,
    created_at: run.created_at,
    steps: runStepRecords(run),
  };
}

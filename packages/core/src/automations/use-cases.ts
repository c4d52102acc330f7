/**
 * Use-cases of the automation endpoints: create (POST /automations), update (PATCH), duplicate,
 * stop and delete. The body has passed the wire schema (contracts/automation.ts); the graph rules
 * are applied here (graph.ts), so nothing is stored that a run could not execute. Stopping (and
 * deleting) cancels the automation's running runs: a run waiting for an event or a delay ends
 * there, and its pending jobs find it over. A run keeps the graph it started with, so editing an
 * automation changes only the runs that start afterwards.
 */
import { notFound, type CreateAutomationInput, type UpdateAutomationInput } from '@petrel/contracts';
import { validateAutomationGraph } from './graph.js';
import type { AutomationPatch, AutomationRunsPort, AutomationsPort } from './ports.js';

export interface AutomationPorts {
  automations: Omit<AutomationsPort, 'triggeredBy'>;
  runs: Pick<AutomationRunsPort, 'cancelRuns' | 'forgetRuns'>;
  clock: { now(): number };
}

export async function createAutomation(
  cmd: { teamId: string; input: CreateAutomationInput },
  ports: Pick<AutomationPorts, 'automations'>,
): Promise<{ id: string }> {
  const { input } = cmd;
  const graph = validateAutomationGraph(input);
  return ports.automations.create(cmd.teamId, {
    name: input.name,
    // Resend's default: a new automation starts disabled
    status: input.status ?? 'disabled',
    graph,
  });
}

export async function updateAutomation(
  cmd: { teamId: string; id: string; input: UpdateAutomationInput },
  ports: Pick<AutomationPorts, 'automations'>,
): Promise<{ id: string }> {
  const { input, teamId, id } = cmd;
  const patch: AutomationPatch = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.status !== undefined) patch.status = input.status;
  if (input.steps !== undefined && input.connections !== undefined)
    patch.graph = validateAutomationGraph({ steps: input.steps, connections: input.connections });
  // Disabling starts no new runs and lets running ones finish; POST /automations/:id/stop is
  // the way to cancel them too.
  if (!(await ports.automations.update(teamId, id, patch))) throw notFound('Automation');
  return { id };
}

export async function duplicateAutomation(
  cmd: { teamId: string; id: string },
  ports: Pick<AutomationPorts, 'automations'>,
): Promise<{ id: string }> {
  const found = await ports.automations.get(cmd.teamId, cmd.id);
  if (!found) throw notFound('Automation');
  // a copy starts disabled, so duplicating never doubles what an event triggers
  return ports.automations.create(cmd.teamId, {
    name: `${found.name} (copy)`,
    status: 'disabled',
    graph: found.graph,
  });
}

/** Disables the automation and cancels its running runs. */
export async function stopAutomation(
  cmd: { teamId: string; id: string },
  ports: AutomationPorts,
): Promise<{ id: string; status: 'disabled'; cancelled: number }> {
  if (!(await ports.automations.update(cmd.teamId, cmd.id, { status: 'disabled' })))
    throw notFound('Automation');
  const cancelled = await ports.runs.cancelRuns(cmd.teamId, cmd.id, ports.clock.now());
  return { id: cmd.id, status: 'disabled', cancelled };
}

export async function deleteAutomation(
  cmd: { teamId: string; id: string },
  ports: AutomationPorts,
): Promise<{ id: string }> {
  if (!(await ports.automations.remove(cmd.teamId, cmd.id))) throw notFound('Automation');
  await ports.runs.cancelRuns(cmd.teamId, cmd.id, ports.clock.now());
  await ports.runs.forgetRuns(cmd.teamId, cmd.id);
  return { id: cmd.id };
}

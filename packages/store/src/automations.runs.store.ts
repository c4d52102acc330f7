/**
 * Automation runs (the engine's state, AutomationRunsPort of core): per run a hash (status,
 * contact, the event that started it, the graph it runs, the count of open steps, one
 * `wait:<step>` field per open wait) and a hash of step records (step key → JSON; `we:<event>` →
 * the payload a wait received); per automation a creation-time listing and the set of its
 * running runs; per contact and event name the set of runs waiting for it. Everything of a run
 * is under its team's `{tag}`, so each write is one script (automations.scripts.ts) on one slot,
 * and a run survives any restart of the processes that execute it.
 *
 * A finished run (completed, failed, cancelled) expires after `retentionMs`; its listing entry
 * is dropped by the next listing that misses it. Listing without a status filter reads one page
 * of the index; with one, the whole index (bounded by the retention) is read and filtered.
 */
import type {
  AutomationConnectionType,
  AutomationRunStatus,
  AutomationRunStepRecord,
} from '@petrel/contracts';
import type { AutomationRunsPort, NewRun, RunState, RunStepState, WaitOutcome } from '@petrel/core';
import { RetainedTeamStore } from './team-store.js';
import { countUsage } from './usage.store.js';
import { execAll, pipeline, transaction } from './scripts.js';
import { pageOf } from './automations.store.js';
import { pageIndex } from './page-index.js';
import { idKey } from '@petrel/core';

const member = (runId: string, stepKey: string): string => `${runId}|${stepKey}`;

export interface RunListItem {
  id: string;
  status: AutomationRunStatus;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

function toRun(r: Record<string, string>, steps: Record<string, string>): RunState {
  const records: Record<string, RunStepState> = {};
  const waitEvents: Record<string, Record<string, unknown>> = {};
  for (const [field, value] of Object.entries(steps)) {
    if (field.startsWith('we:')) waitEvents[field.slice(3)] = JSON.parse(value) as Record<string, unknown>;
    else records[field] = JSON.parse(value) as RunStepState;
  }
  return {
    id: r.id!,
    automationId: r.automation_id!,
    contactId: r.contact_id!,
    status: r.status as AutomationRunStatus,
    created_at: r.created_at!,
    started_at: r.started_at || null,
    completed_at: r.completed_at || null,
    event: JSON.parse(r.event!) as RunState['event'],
    graph: JSON.parse(r.graph!) as RunState['graph'],
    steps: records,
    waitEvents,
  };
}

/** `retentionMs`: how long a finished run stays readable. */
export class AutomationRunsStore extends RetainedTeamStore implements AutomationRunsPort {
  private iso(ms: number): string {
    return new Date(ms).toISOString();
  }

  private record(
    key: string,
    type: string,
    status: AutomationRunStepRecord['status'],
    nowMs: number,
    prev?: RunStepState,
  ): RunStepState {
    return {
      key,
      type: type as RunStepState['type'],
      status,
      output: prev?.output ?? null,
      error: prev?.error ?? null,
      started_at: prev?.started_at ?? null,
      completed_at: prev?.completed_at ?? null,
      created_at: prev?.created_at ?? this.iso(nowMs),
    };
  }

  /** The keys of a running step's scripts: the run, its steps, and its automation's active runs. */
  private runKeys(teamId: string, runId: string, automationId: string): string[] {
    const k = this.keys;
    return [
      k.automationRun(teamId, runId),
      k.automationRunSteps(teamId, runId),
      k.automationActiveRuns(teamId, automationId),
    ];
  }

  /**
   * The arguments of a script that ends step `stepKey` (the layout of the `finish-step` include):
   * the step's record, the time, the run, the retention of a finished run, then how many steps
   * follow and each one's key and pending record.
   */
  private finishArgs(
    stepKey: string,
    rec: RunStepState,
    runId: string,
    nowMs: number,
    next: readonly { key: string; type: string }[],
  ): (string | number)[] {
    const pairs = next.flatMap((n) => [n.key, JSON.stringify(this.record(n.key, n.type, 'pending', nowMs))]);
    return [stepKey, JSON.stringify(rec), this.iso(nowMs), runId, this.retentionMs, next.length, ...pairs];
  }

  async createRun(teamId: string, run: NewRun, nowMs: number): Promise<boolean> {
    const k = this.keys;
    const iso = this.iso(nowMs);
    const first = this.record(run.firstStep.key, run.firstStep.type, 'pending', nowMs);
    const res = await this.redis.petrelCreateAutomationRun(
      k.automationRun(teamId, run.id),
      k.automationRunSteps(teamId, run.id),
      k.automationRuns(teamId, run.automationId),
      k.automationActiveRuns(teamId, run.automationId),
      run.id,
      nowMs,
      run.firstStep.key,
      JSON.stringify(first),
      ...['id', run.id, 'automation_id', run.automationId, 'contact_id', run.contactId, 'status', 'running'],
      ...['created_at', iso, 'started_at', iso, 'completed_at', '', 'open', 1],
      ...['event', JSON.stringify(run.event), 'graph', JSON.stringify(run.graph)],
    );
    // GET /usage's automation runs this month
    if (res === 1) await countUsage(this.redis, k, teamId, 'automation-runs', 1, nowMs);
    return res === 1;
  }

  async getRun(teamId: string, runId: string): Promise<RunState | null> {
    const pipe = pipeline(this.redis, 'AutomationRunsStore.getRun');
    pipe.hgetall(this.keys.automationRun(teamId, runId));
    pipe.hgetall(this.keys.automationRunSteps(teamId, runId));
    const [r, steps] = (await execAll(pipe)) as Record<string, string>[];
    return r?.id ? toRun(r, steps ?? {}) : null;
  }

  /** A run of the automation, for GET /automations/:id/runs/:runId. */
  async getRunOf(teamId: string, automationId: string, runId: string): Promise<RunState | null> {
    if (!/^[0-9a-f-]{36}$/i.test(runId)) return null;
    const run = await this.getRun(teamId, idKey(runId));
    return run && run.automationId === automationId ? run : null;
  }

  private async step(teamId: string, runId: string, key: string): Promise<RunStepState | undefined> {
    const raw = await this.redis.hget(this.keys.automationRunSteps(teamId, runId), key);
    return raw ? (JSON.parse(raw) as RunStepState) : undefined;
  }

  async startStep(teamId: string, runId: string, stepKey: string, nowMs: number): Promise<boolean> {
    const prev = await this.step(teamId, runId, stepKey);
    if (prev && prev.status !== 'pending') return prev.status === 'running';
    const type = prev?.type ?? 'send_email';
    const rec = { ...this.record(stepKey, type, 'running', nowMs, prev), started_at: this.iso(nowMs) };
    const res = await this.redis.petrelSetAutomationStep(
      2,
      this.keys.automationRun(teamId, runId),
      this.keys.automationRunSteps(teamId, runId),
      stepKey,
      prev ? prev.status : '',
      JSON.stringify(rec),
      '',
      '',
    );
    return res === 1;
  }

  async completeStep(
    teamId: string,
    runId: string,
    step: { key: string; exit: AutomationConnectionType; output: Record<string, unknown> },
    next: readonly { key: string; type: string }[],
    nowMs: number,
  ): Promise<{ applied: boolean; runCompleted: boolean }> {
    const prev = await this.step(teamId, runId, step.key);
    const iso = this.iso(nowMs);
    const rec: RunStepState = {
      ...this.record(step.key, prev?.type ?? 'trigger', 'completed', nowMs, prev),
      started_at: prev?.started_at ?? iso,
      completed_at: iso,
      output: step.output,
      exit: step.exit,
    };
    const k = this.keys;
    const automationId = await this.redis.hget(k.automationRun(teamId, runId), 'automation_id');
    if (!automationId) return { applied: false, runCompleted: false };
    const [applied, completed] = await this.redis.petrelCompleteAutomationStep(
      ...this.runKeys(teamId, runId, automationId),
      ...this.finishArgs(step.key, rec, runId, nowMs, next),
    );
    return { applied: applied === 1, runCompleted: completed === 1 };
  }

  async failStep(
    teamId: string,
    runId: string,
    stepKey: string,
    error: Record<string, unknown>,
    nowMs: number,
  ): Promise<boolean> {
    const prev = await this.step(teamId, runId, stepKey);
    const iso = this.iso(nowMs);
    const rec: RunStepState = {
      ...this.record(stepKey, prev?.type ?? 'send_email', 'failed', nowMs, prev),
      started_at: prev?.started_at ?? iso,
      completed_at: iso,
      error,
    };
    const k = this.keys;
    const automationId = await this.redis.hget(k.automationRun(teamId, runId), 'automation_id');
    if (!automationId) return false;
    const res = await this.redis.petrelFailAutomationStep(
      ...this.runKeys(teamId, runId, automationId),
      stepKey,
      JSON.stringify(rec),
      iso,
      runId,
      this.retentionMs,
    );
    return res === 1;
  }

  async parkStep(
    teamId: string,
    runId: string,
    stepKey: string,
    output: Record<string, unknown>,
    wait: { contactId: string; eventName: string } | null,
    nowMs: number,
  ): Promise<boolean> {
    const prev = await this.step(teamId, runId, stepKey);
    if (prev && prev.status !== 'pending' && prev.status !== 'running') return prev.status === 'waiting';
    const iso = this.iso(nowMs);
    const rec: RunStepState = {
      ...this.record(stepKey, prev?.type ?? 'delay', 'waiting', nowMs, prev),
      started_at: prev?.started_at ?? iso,
      output,
    };
    const k = this.keys;
    const keys = [k.automationRun(teamId, runId), k.automationRunSteps(teamId, runId)];
    if (wait) keys.push(k.automationWaits(teamId, wait.contactId, wait.eventName));
    const res = await this.redis.petrelSetAutomationStep(
      keys.length,
      ...keys,
      stepKey,
      prev ? prev.status : '',
      JSON.stringify(rec),
      wait ? wait.eventName : '',
      member(runId, stepKey),
    );
    return res === 1;
  }

  async resolveWait(
    teamId: string,
    runId: string,
    stepKey: string,
    outcome: WaitOutcome,
    next: readonly { key: string; type: string }[],
    nowMs: number,
  ): Promise<{ won: boolean; runCompleted: boolean }> {
    const k = this.keys;
    const [automationId, contactId, eventName] = await this.redis.hmget(
      k.automationRun(teamId, runId),
      'automation_id',
      'contact_id',
      `wait:${stepKey}`,
    );
    if (!automationId || !contactId || !eventName) return { won: false, runCompleted: false };
    const prev = await this.step(teamId, runId, stepKey);
    const iso = this.iso(nowMs);
    const exit = outcome.kind === 'event' ? 'event_received' : 'timeout';
    const rec: RunStepState = {
      ...this.record(stepKey, prev?.type ?? 'wait_for_event', 'completed', nowMs, prev),
      started_at: prev?.started_at ?? iso,
      completed_at: iso,
      output:
        outcome.kind === 'event'
          ? { ...prev?.output, received: true, event_id: outcome.eventId, payload: outcome.payload }
          : { ...prev?.output, received: false, timed_out: true },
      exit,
    };
    const [won, completed] = await this.redis.petrelResolveAutomationWait(
      ...this.runKeys(teamId, runId, automationId),
      k.automationWaits(teamId, contactId, eventName),
      ...this.finishArgs(stepKey, rec, runId, nowMs, next),
      member(runId, stepKey),
      outcome.kind === 'event' ? outcome.eventName : '',
      outcome.kind === 'event' ? JSON.stringify(outcome.payload) : '',
    );
    return { won: won === 1, runCompleted: completed === 1 };
  }

  async waiting(
    teamId: string,
    contactId: string,
    eventName: string,
  ): Promise<{ runId: string; stepKey: string }[]> {
    const members = await this.redis.smembers(this.keys.automationWaits(teamId, contactId, eventName));
    return members.flatMap((m) => {
      const bar = m.indexOf('|');
      return bar < 0 ? [] : [{ runId: m.slice(0, bar), stepKey: m.slice(bar + 1) }];
    });
  }

  async dropWait(
    teamId: string,
    contactId: string,
    eventName: string,
    runId: string,
    stepKey: string,
  ): Promise<void> {
    await this.redis.srem(this.keys.automationWaits(teamId, contactId, eventName), member(runId, stepKey));
  }

  async cancelRuns(teamId: string, automationId: string, nowMs: number): Promise<number> {
    const k = this.keys;
    let cancelled = 0;
    for (const runId of await this.redis.smembers(k.automationActiveRuns(teamId, automationId))) {
      const r = await this.redis.hgetall(k.automationRun(teamId, runId));
      const waits = Object.entries(r)
        .filter(([f]) => f.startsWith('wait:'))
        .map(([f, eventName]) => ({
          key: k.automationWaits(teamId, r.contact_id ?? '', eventName),
          m: member(runId, f.slice(5)),
        }));
      const res = await this.redis.petrelCancelAutomationRun(
        3 + waits.length,
        ...this.runKeys(teamId, runId, automationId),
        ...waits.map((w) => w.key),
        this.iso(nowMs),
        runId,
        this.retentionMs,
        ...waits.map((w) => w.m),
      );
      if (res === 1) cancelled++;
      // a run that ended meanwhile is no longer active either
      else await this.redis.srem(k.automationActiveRuns(teamId, automationId), runId);
    }
    return cancelled;
  }

  async forgetRuns(teamId: string, automationId: string): Promise<void> {
    const k = this.keys;
    await transaction(this.redis, 'AutomationRunsStore.forgetRuns')
      .del(k.automationRuns(teamId, automationId))
      .del(k.automationActiveRuns(teamId, automationId))
      .exec();
  }

  /** An automation's runs, newest first, optionally of some statuses; null for an unknown cursor. */
  async listRuns(
    teamId: string,
    automationId: string,
    page: { limit: number; after?: string; before?: string },
    statuses?: readonly AutomationRunStatus[],
  ): Promise<{ items: RunListItem[]; hasMore: boolean } | null> {
    const k = this.keys;
    const index = k.automationRuns(teamId, automationId);
    if (!statuses?.length) {
      // unfiltered: one page of the index, whatever the automation's count of runs
      const found = await pageIndex(this.redis, index, page);
      if (!found) return null;
      return { items: await this.listItems(teamId, automationId, found.ids), hasMore: found.hasMore };
    }
    // filtered: the whole index (bounded by the retention), filtered, then paged
    const items = await this.listItems(teamId, automationId, await this.redis.zrevrange(index, 0, -1));
    return pageOf(
      items.filter((r) => statuses.includes(r.status)),
      page,
    );
  }

  /** The list items of these runs, in order; ids whose run expired leave the index. */
  private async listItems(
    teamId: string,
    automationId: string,
    ids: readonly string[],
  ): Promise<RunListItem[]> {
    const k = this.keys;
    const pipe = pipeline(this.redis, 'AutomationRunsStore.listRuns');
    for (const id of ids)
      pipe.hmget(k.automationRun(teamId, id), 'status', 'started_at', 'completed_at', 'created_at');
    const rows = ids.length ? ((await execAll(pipe)) as (string | null)[][]) : [];
    const gone = ids.filter((_, i) => !rows[i]?.[0]);
    if (gone.length) await this.redis.zrem(k.automationRuns(teamId, automationId), ...gone);
    const items = ids.flatMap((id, i): RunListItem[] => {
      const [status, started, completed, created] = rows[i] ?? [];
      if (!status) return [];
      return [
        {
          id,
          status: status as AutomationRunStatus,
          started_at: started || null,
          completed_at: completed || null,
          created_at: created ?? '',
        },
      ];
    });
    return items;
  }
}

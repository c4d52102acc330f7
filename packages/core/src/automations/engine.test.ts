/**
 * The engine over in-memory ports: runs started once per event, steps completed once, the
 * send_email step's acceptance replayed (not repeated) when its job runs again, a wait ended by
 * its event or its timeout (never both), permanent errors failing the run. The Redis runs store
 * is tested against the same contract in packages/store (automations.store.int.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { memoryAcceptPorts, MemoryContactProperties, MemoryContacts, newContact } from '@petrel/testing';
import { dispatchEvent, runStep, type EnginePorts, type StepJob } from './engine.js';
import { validateAutomationGraph, type RawGraph } from './graph.js';
import type {
  AutomationRunsPort,
  NewRun,
  NextStep,
  ReceivedEvent,
  RunState,
  RunStepState,
  StepRef,
  StepWait,
  StoredAutomation,
  WaitOutcome,
} from './ports.js';

const TEAM = 'team-1';

/** The runs port in memory, with the store's guards (run running, step status, one wait winner). */
class MemoryRuns implements AutomationRunsPort {
  readonly runs = new Map<string, RunState & { open: number; waits: Set<string> }>();
  readonly waits = new Map<string, Set<string>>();
  /** When set, the next completeStep throws before writing (a worker killed mid-step). */
  crashNextComplete = false;

  private rec(key: string, type: string, status: RunStepState['status'], now: number): RunStepState {
    const iso = new Date(now).toISOString();
    return {
      key,
      type: type as RunStepState['type'],
      status,
      output: null,
      error: null,
      started_at: null,
      completed_at: null,
      created_at: iso,
    };
  }

  async createRun(_t: string, run: NewRun, now: number) {
    if (this.runs.has(run.id)) return false;
    const iso = new Date(now).toISOString();
    this.runs.set(run.id, {
      id: run.id,
      automationId: run.automationId,
      contactId: run.contactId,
      status: 'running',
      created_at: iso,
      started_at: iso,
      completed_at: null,
      event: run.event,
      graph: run.graph,
      steps: { [run.firstStep.key]: this.rec(run.firstStep.key, 'trigger', 'pending', now) },
      waitEvents: {},
      open: 1,
      waits: new Set(),
    });
    return true;
  }
  async getRun(_t: string, id: string) {
    const r = this.runs.get(id);
    return r ? (structuredClone(r) as RunState) : null;
  }
  async startStep(_t: string, id: string, key: string, now: number) {
    const r = this.runs.get(id)!;
    if (r.status !== 'running') return false;
    r.steps[key] = { ...r.steps[key]!, status: 'running', started_at: new Date(now).toISOString() };
    return true;
  }
  private finish(r: RunState & { open: number }, next: readonly NextStep[], now: number) {
    let added = 0;
    for (const n of next)
      if (!r.steps[n.key]) {
        r.steps[n.key] = this.rec(n.key, n.type, 'pending', now);
        added++;
      }
    r.open += added - 1;
    if (r.open > 0) return false;
    r.status = 'completed';
    r.completed_at = new Date(now).toISOString();
    return true;
  }
  async completeStep(
    _t: string,
    id: string,
    step: { key: string; exit: RunStepState['exit'] & string; output: Record<string, unknown> },
    next: readonly NextStep[],
    now: number,
  ) {
    if (this.crashNextComplete) {
      this.crashNextComplete = false;
      throw new Error('worker killed');
    }
    const r = this.runs.get(id)!;
    const cur = r.steps[step.key];
    if (r.status !== 'running' || cur?.status === 'completed' || cur?.status === 'failed')
      return { applied: false, runCompleted: false };
    r.steps[step.key] = { ...cur!, status: 'completed', output: step.output, exit: step.exit };
    return { applied: true, runCompleted: this.finish(r, next, now) };
  }
  async failStep(_t: string, id: string, key: string, error: Record<string, unknown>) {
    const r = this.runs.get(id)!;
    if (r.status !== 'running') return false;
    r.steps[key] = { ...r.steps[key]!, status: 'failed', error };
    r.status = 'failed';
    return true;
  }
  async parkStep(
    _t: string,
    id: string,
    key: string,
    output: Record<string, unknown>,
    wait: StepWait | null,
  ) {
    const r = this.runs.get(id)!;
    if (r.status !== 'running') return false;
    r.steps[key] = { ...r.steps[key]!, status: 'waiting', output };
    if (wait) {
      r.waits.add(key);
      const k = `${wait.contactId}|${wait.eventName}`;
      this.waits.set(k, new Set([...(this.waits.get(k) ?? []), `${id}|${key}`]));
    }
    return true;
  }
  async resolveWait(
    _t: string,
    id: string,
    key: string,
    outcome: WaitOutcome,
    next: readonly NextStep[],
    now: number,
  ) {
    const r = this.runs.get(id)!;
    if (r.status !== 'running' || !r.waits.delete(key)) return { won: false, runCompleted: false };
    if (outcome.kind === 'timeout') for (const set of this.waits.values()) set.delete(`${id}|${key}`);
    if (outcome.kind === 'event') r.waitEvents[outcome.eventName] = outcome.payload;
    r.steps[key] = {
      ...r.steps[key]!,
      status: 'completed',
      output: outcome.kind === 'event' ? { event_id: outcome.eventId } : { timed_out: true },
      exit: outcome.kind === 'event' ? 'event_received' : 'timeout',
    };
    return { won: true, runCompleted: this.finish(r, next, now) };
  }
  async waiting(_t: string, contactId: string, eventName: string) {
    return [...(this.waits.get(`${contactId}|${eventName}`) ?? [])].map((m) => {
      const [runId, stepKey] = m.split('|') as [string, string];
      return { runId, stepKey };
    });
  }
  async dropWait(_t: string, contactId: string, eventName: string, runId: string, stepKey: string) {
    this.waits.get(`${contactId}|${eventName}`)?.delete(`${runId}|${stepKey}`);
  }
  async cancelRuns() {
    return 0;
  }
  async forgetRuns() {}
}

function setup(raw: RawGraph) {
  let now = 1_000_000;
  const automation: StoredAutomation = {
    id: 'auto-1',
    name: 'A',
    status: 'enabled',
    created_at: '',
    updated_at: '',
    graph: validateAutomationGraph(raw),
  };
  const jobs: StepJob[] = [];
  const removed: { runId: string; index: number }[] = [];
  const runs = new MemoryRuns();
  const properties = new MemoryContactProperties();
  const contacts = Object.assign(new MemoryContacts(properties), {
    remove: async () => null,
    setSegment: async () => 'done' as const,
  });
  const accept = memoryAcceptPorts({ clock: { now: () => now } });
  const ports: EnginePorts = {
    automations: { triggeredBy: async (_t, name) => (name === 'signed_up' ? [automation] : []) },
    runs,
    queue: {
      enqueueSteps: async (teamId: string, runId: string, steps: readonly StepRef[]) => {
        for (const s of steps)
          if (!jobs.some((j) => j.runId === runId && j.index === s.index))
            jobs.push({ teamId, runId, stepKey: s.key, index: s.index, visit: 1 });
      },
      removeStep: async (runId: string, index: number) => {
        removed.push({ runId, index });
      },
    },
    contacts,
    properties,
    accept,
    clock: { now: () => now },
  };
  /** Runs every queued job once, in order; the sleeping ones stay queued (as delayed jobs do). */
  async function drain(): Promise<void> {
    const sleeping: StepJob[] = [];
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      if ((await runStep(job, ports)).kind === 'sleep') sleeping.push(job);
    }
    jobs.length = 0;
    jobs.push(...sleeping);
  }
  return {
    ports,
    runs,
    jobs,
    removed,
    accept,
    contacts,
    drain,
    advance: (ms: number) => (now += ms),
    event: (over: Partial<ReceivedEvent> = {}): ReceivedEvent => ({
      id: `ev-${now}`,
      teamId: TEAM,
      name: 'signed_up',
      contactId: 'c-1',
      payload: { plan: 'pro' },
      receivedAt: new Date(now).toISOString(),
      ...over,
    }),
  };
}

const welcome: RawGraph = {
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'signed_up' } },
    { key: 'mail', type: 'send_email', config: { template: { id: 'welcome' } } },
    { key: 'pause', type: 'delay', config: { duration: 'PT2S' } },
    {
      key: 'pro',
      type: 'condition',
      config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
    },
    { key: 'yes', type: 'contact_delete', config: {} },
    { key: 'no', type: 'add_to_segment', config: { segment_id: 's-1' } },
  ],
  connections: [
    { from: 'start', to: 'mail' },
    { from: 'mail', to: 'pause' },
    { from: 'pause', to: 'pro' },
    { from: 'pro', to: 'yes', type: 'condition_met' },
    { from: 'pro', to: 'no', type: 'condition_not_met' },
  ],
};

async function withContactAndTemplate(s: ReturnType<typeof setup>) {
  const created = await s.contacts.create(TEAM, newContact({ email: 'ada@example.test' }));
  if (!created.ok) throw new Error('no contact');
  await s.accept.templates.addPublished(TEAM, {
    alias: 'welcome',
    from: 'Acme <a@acme.test>',
    subject: 'Hi',
    html: '<p>Hi</p>',
  });
  return created.id;
}

describe('dispatchEvent and runStep', () => {
  it('starts one run per event however often it is delivered, and runs it to the end once', async () => {
    const s = setup(welcome);
    const contactId = await withContactAndTemplate(s);
    const event = s.event({ contactId });
    expect(await dispatchEvent(event, s.ports)).toEqual({ started: 1, resumed: 0 });
    expect(await dispatchEvent(event, s.ports)).toEqual({ started: 0, resumed: 0 });
    expect(s.runs.runs.size).toBe(1);

    await s.drain(); // trigger, mail, pause (sleeps)
    const [run] = [...s.runs.runs.values()];
    expect(run!.steps.pause).toMatchObject({ status: 'waiting' });
    expect(s.accept.store.commits).toBe(1);
    await s.drain(); // pause still asleep
    expect(run!.steps.pause!.status).toBe('waiting');
    s.advance(2_000);
    await s.drain(); // pause → pro
    await s.drain(); // pro → yes
    await s.drain(); // yes
    expect(run!.status).toBe('completed');
    expect(run!.steps.yes!.status).toBe('completed');
    expect(run!.steps.no).toBeUndefined();
    expect(s.accept.store.commits).toBe(1);
  });

  it('a send_email step whose worker died after accepting replays the acceptance, never sends again', async () => {
    const s = setup(welcome);
    const contactId = await withContactAndTemplate(s);
    await dispatchEvent(s.event({ contactId }), s.ports);
    const [trigger] = s.jobs.splice(0);
    await runStep(trigger!, s.ports);
    const mail = s.jobs.find((j) => j.stepKey === 'mail')!;
    s.runs.crashNextComplete = true;
    await expect(runStep(mail, s.ports)).rejects.toThrow('worker killed');
    expect(s.accept.store.commits).toBe(1);
    // BullMQ runs the stalled job again
    expect(await runStep(mail, s.ports)).toMatchObject({ kind: 'done', result: 'completed' });
    expect(s.accept.store.commits).toBe(1);
    expect(s.accept.idempotency.outcomes).toEqual(['proceed', 'replay']);
    // and a third time finds it completed
    expect(await runStep(mail, s.ports)).toMatchObject({ kind: 'done', result: 'completed_before' });
  });

  it('sends the template with variables read from the event and the contact (text for booleans)', async () => {
    const graph: RawGraph = {
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'signed_up' } },
        {
          key: 'mail',
          type: 'send_email',
          config: {
            template: {
              id: 'welcome',
              variables: {
                NAME: { var: 'contact.first_name' },
                VIP: { var: 'event.vip' },
                SEATS: { var: 'event.seats' },
                GONE: { var: 'event.missing' },
                FIXED: 'x',
              },
            },
            subject: 'Custom',
          },
        },
      ],
      connections: [{ from: 'start', to: 'mail' }],
    };
    const s = setup(graph);
    const contactId = await withContactAndTemplate(s);
    await dispatchEvent(s.event({ contactId, payload: { vip: true, seats: 3 } }), s.ports);
    await s.drain();
    await s.drain();
    const [email] = s.accept.store.records;
    expect(email!.content.to).toEqual(['ada@example.test']);
    expect(email!.content.subject).toBe('Custom');
    expect(email!.content.template?.variables).toEqual({ NAME: 'Ada', VIP: 'true', SEATS: 3, FIXED: 'x' });
    expect([...s.runs.runs.values()][0]!.status).toBe('completed');
  });

  it('fails the run when the template is not published', async () => {
    const s = setup(welcome);
    const created = await s.contacts.create(
      TEAM,
      newContact({ email: 'bob@example.test', first_name: null }),
    );
    await dispatchEvent(s.event({ contactId: created.ok ? created.id : '' }), s.ports);
    await s.drain();
    await s.drain();
    const [run] = [...s.runs.runs.values()];
    expect(run!.status).toBe('failed');
    expect(run!.steps.mail).toMatchObject({ status: 'failed', error: { name: 'validation_error' } });
  });

  const waitGraph: RawGraph = {
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'signed_up' } },
      { key: 'w', type: 'wait_for_event', config: { event_name: 'paid', timeout: 'PT5S' } },
      { key: 'got', type: 'contact_delete', config: {} },
      { key: 'late', type: 'add_to_segment', config: { segment_id: 's' } },
    ],
    connections: [
      { from: 'start', to: 'w' },
      { from: 'w', to: 'got', type: 'event_received' },
      { from: 'w', to: 'late', type: 'timeout' },
    ],
  };

  it('a wait ends by its event, and the timeout that follows does nothing', async () => {
    const s = setup(waitGraph);
    await dispatchEvent(s.event(), s.ports);
    await s.drain();
    await s.drain(); // w parks
    const [run] = [...s.runs.runs.values()];
    expect(run!.steps.w!.status).toBe('waiting');
    expect(
      await dispatchEvent(s.event({ id: 'ev-paid', name: 'paid', payload: { total: 3 } }), s.ports),
    ).toEqual({
      started: 0,
      resumed: 1,
    });
    expect(run!.waitEvents).toEqual({ paid: { total: 3 } });
    // the wait's sleeping job (its timeout) is dropped
    expect(s.removed).toEqual([{ runId: run!.id, index: 1 }]);
    s.advance(5_000);
    await s.drain(); // the wait's timeout job and `got`
    await s.drain();
    expect(run!.steps.w).toMatchObject({ status: 'completed', exit: 'event_received' });
    expect(run!.steps.late).toBeUndefined();
    expect(run!.status).toBe('completed');
  });

  it('a dispatch that died after ending a wait queues its next steps when it runs again', async () => {
    const s = setup(waitGraph);
    await dispatchEvent(s.event(), s.ports);
    await s.drain();
    await s.drain(); // w parks
    const paid = s.event({ id: 'ev-paid', name: 'paid' });
    const enqueue = s.ports.queue.enqueueSteps;
    s.ports.queue.enqueueSteps = async () => {
      throw new Error('worker killed');
    };
    await expect(dispatchEvent(paid, s.ports)).rejects.toThrow('worker killed');
    s.ports.queue.enqueueSteps = enqueue;
    expect(s.jobs.some((j) => j.stepKey === 'got')).toBe(false);
    expect(await dispatchEvent(paid, s.ports)).toEqual({ started: 0, resumed: 0 });
    expect(s.jobs.some((j) => j.stepKey === 'got')).toBe(true);
    expect(await s.ports.runs.waiting(TEAM, 'c-1', 'paid')).toEqual([]);
  });

  it('a wait without its event takes the timeout branch; a late event resumes nothing', async () => {
    const s = setup(waitGraph);
    await dispatchEvent(s.event(), s.ports);
    await s.drain();
    await s.drain();
    s.advance(5_000);
    await s.drain(); // timeout
    expect(await dispatchEvent(s.event({ id: 'ev-late', name: 'paid' }), s.ports)).toEqual({
      started: 0,
      resumed: 0,
    });
    await s.drain();
    const [run] = [...s.runs.runs.values()];
    expect(run!.steps.w).toMatchObject({ status: 'completed', exit: 'timeout' });
    expect(run!.steps.got).toBeUndefined();
    expect(run!.status).toBe('completed');
  });
});

/**
 * The automation engine's use-cases, run by the worker's automation processor (one job at a
 * time, any number of processes):
 *
 * - {@link dispatchEvent}: an event starts a run of every enabled automation whose trigger names
 *   it (run id derived from event and automation, so a redelivered event starts nothing twice),
 *   and resumes the runs of the same contact waiting for it (filter_rule permitting).
 * - {@link runStep}: one step of one run. Steps that act (send_email, contact_update,
 *   contact_delete, add_to_segment) are at-least-once with effects made idempotent — a
 *   send_email step accepts its email through acceptEmails (the path POST /emails takes: template,
 *   topics, suppressions, unsubscribe) under an Idempotency-Key derived from run, step and visit,
 *   so a retried step replays the first acceptance instead of sending again; the contact steps
 *   set state, so repeating them is harmless. A `delay`, and a `wait_for_event`'s timeout, are the
 *   step's own job put back to sleep (`{ kind: 'sleep' }`), so they survive restarts with the
 *   queue.
 *
 * Every state change is a guarded write of the runs port (a step completes once, a wait ends once:
 * whichever of its event and its timeout comes first), then the next steps' jobs are queued. A
 * crash between the two is repaired by the job running again: a step's job finds the step
 * completed, an event's dispatch finds the wait it ended still listed (the entry leaves the wait
 * set only once the next steps are queued), and each queues the next steps (job ids are fixed, so
 * twice is once). Only a step the run scheduled runs: its `pending` record is written before its
 * job is queued, so a stray job does nothing.
 */
import {
  AUTOMATION_LIMITS,
  PetrelError,
  type AutomationConnectionType,
  type AutomationStep,
  type ContactRecord,
} from '@petrel/contracts';
import { acceptEmails, type AcceptPorts } from '../accept/accept-emails.js';
import { deterministicEmailId, idKey } from '../kernel/ids.js';
import { AUTOMATION_RUN_MACHINE, guardAllows } from '../transitions/index.js';
import { updateContact, type ContactPorts } from '../audience/contacts/contacts.use-cases.js';
import { evaluateCondition, resolveValue, type RunContext } from './condition.js';
import { parseDuration } from './duration.js';
import { nextSteps } from './graph.js';
import type {
  AutomationObserver,
  AutomationRunsPort,
  AutomationStepQueue,
  AutomationsPort,
  NextStep,
  ReceivedEvent,
  RunState,
  StepRef,
} from './ports.js';

export interface EnginePorts {
  automations: Pick<AutomationsPort, 'triggeredBy'>;
  runs: AutomationRunsPort;
  queue: AutomationStepQueue;
  contacts: ContactPorts['contacts'] & {
    remove(teamId: string, idOrEmail: string): Promise<string | null>;
    setSegment(
      teamId: string,
      idOrEmail: string,
      segmentId: string,
      op: 'add' | 'remove',
    ): Promise<'done' | 'not_member' | 'no_contact' | 'no_segment'>;
  };
  properties: ContactPorts['properties'];
  /** The acceptance ports POST /emails uses. */
  accept: AcceptPorts;
  clock: { now(): number };
  observer?: AutomationObserver;
}

/**
 * A run's id: the derivation of keyed email ids (UUIDv7-shaped, the event's time then SHA-256
 * bits) over (team, event, automation), so a redelivered event starts nothing twice. Must never
 * change, for the same reason.
 */
export function runIdFor(teamId: string, eventId: string, automationId: string, eventMs: number): string {
  return deterministicEmailId(teamId, `${eventId}\n${automationId}`, 'automation-run', 0, eventMs);
}

/** The Idempotency-Key of a send_email step's email: one per run, step and visit. */
export const stepIdempotencyKey = (runId: string, index: number, visit: number): string =>
  `automation:${runId}:${index}:${visit}`;

const refsOf = (run: Pick<RunState, 'graph'>, keys: readonly string[]): StepRef[] =>
  keys.map((key) => ({ key, index: run.graph.steps.findIndex((s) => s.key === key) }));

const typed = (run: Pick<RunState, 'graph'>, keys: readonly string[]): NextStep[] =>
  keys.map((key) => ({ key, type: run.graph.steps.find((s) => s.key === key)!.type }));

/** Starts the runs `event` triggers and resumes the runs waiting for it. */
export async function dispatchEvent(
  event: ReceivedEvent,
  ports: EnginePorts,
): Promise<{ started: number; resumed: number }> {
  const { teamId } = event;
  const now = ports.clock.now();
  let started = 0;
  let resumed = 0;
  for (const automation of await ports.automations.triggeredBy(teamId, event.name)) {
    const runId = runIdFor(teamId, event.id, automation.id, Date.parse(event.receivedAt) || now);
    const trigger = automation.graph.steps.findIndex((s) => s.type === 'trigger');
    const created = await ports.runs.createRun(
      teamId,
      {
        id: runId,
        automationId: automation.id,
        contactId: event.contactId,
        event: { id: event.id, name: event.name, payload: { ...event.payload } },
        graph: automation.graph,
        firstStep: { key: automation.graph.steps[trigger]!.key, type: 'trigger' },
      },
      now,
    );
    if (created) {
      started++;
      ports.observer?.runStarted();
    }
    // queued even when the run existed: a crash may have come between the two
    await ports.queue.enqueueSteps(teamId, runId, [
      { key: automation.graph.steps[trigger]!.key, index: trigger },
    ]);
  }

  for (const w of await ports.runs.waiting(teamId, event.contactId, event.name)) {
    const drop = () => ports.runs.dropWait(teamId, event.contactId, event.name, w.runId, w.stepKey);
    const run = await ports.runs.getRun(teamId, w.runId);
    const step = run?.graph.steps.find((s) => s.key === w.stepKey);
    if (
      !run ||
      !guardAllows(AUTOMATION_RUN_MACHINE.guards.active, run.status) ||
      step?.type !== 'wait_for_event'
    ) {
      await drop();
      continue;
    }
    const rec = run.steps[step.key];
    if (rec?.status === 'completed') {
      // ended already; by this very event when an earlier try of this dispatch died before
      // queuing the next steps (the entry leaves the set only after that)
      if (rec.output?.event_id === event.id)
        await ports.queue.enqueueSteps(
          teamId,
          run.id,
          refsOf(run, nextSteps(run.graph, step.key, 'event_received')),
        );
      await drop();
      continue;
    }
    if (rec?.status !== 'waiting') continue;
    if (step.config.filter_rule) {
      const contact = await ports.contacts.get(teamId, run.contactId);
      const ctx: RunContext = { event: event.payload, contact, waitEvents: run.waitEvents };
      if (!evaluateCondition(step.config.filter_rule, ctx)) continue;
    }
    const next = nextSteps(run.graph, step.key, 'event_received');
    const res = await ports.runs.resolveWait(
      teamId,
      run.id,
      step.key,
      { kind: 'event', eventId: event.id, eventName: event.name, payload: { ...event.payload } },
      typed(run, next),
      ports.clock.now(),
    );
    if (res.won) {
      resumed++;
      if (res.runCompleted) ports.observer?.runCompleted();
      await ports.queue.enqueueSteps(teamId, run.id, refsOf(run, next));
      await ports.queue.removeStep?.(run.id, run.graph.steps.indexOf(step));
    }
    await drop();
  }
  return { started, resumed };
}

export interface StepJob {
  teamId: string;
  runId: string;
  stepKey: string;
  index: number;
  visit: number;
}

/** What the job does next: end, or sleep until a time (a delay, a wait's timeout) and run again. */
export type StepOutcome = ({ kind: 'done'; result: string } | { kind: 'sleep'; untilMs: number }) & {
  /** The step's type, once the step was found (a metric's label). */
  stepType?: string;
};

const done = (result: string): StepOutcome => ({ kind: 'done', result });

/**
 * An error that retrying cannot cure: the step fails and so does the run. Refusals of the
 * acceptance pipeline (unpublished template, invalid address…) are such errors; 409 and 429
 * (a concurrent acceptance under the same key, a rate limit) and anything not a PetrelError
 * (Redis unreachable) are retried.
 */
export function isPermanent(err: unknown): err is PetrelError {
  return (
    err instanceof PetrelError && err.statusCode < 500 && err.statusCode !== 409 && err.statusCode !== 429
  );
}

const durationMs = (text: string): number => {
  const res = parseDuration(text, AUTOMATION_LIMITS.maxDurationMs);
  // the graph was validated on write; a stored duration that no longer parses waits the most
  return res.ok ? res.ms : AUTOMATION_LIMITS.maxDurationMs;
};

/**
 * Runs one step's job. `lastAttempt`: the queue will not retry this job again, so a transient
 * error fails the step (and the run) instead of being thrown.
 */
export async function runStep(job: StepJob, ports: EnginePorts, lastAttempt = false): Promise<StepOutcome> {
  const run = await ports.runs.getRun(job.teamId, job.runId);
  const stepType = run?.graph.steps[job.index]?.type;
  const outcome = await runFound(job, run, ports, lastAttempt);
  return stepType ? { ...outcome, stepType } : outcome;
}

async function runFound(
  job: StepJob,
  run: RunState | null,
  ports: EnginePorts,
  lastAttempt: boolean,
): Promise<StepOutcome> {
  if (!run) return done('run_gone');
  if (!guardAllows(AUTOMATION_RUN_MACHINE.guards.active, run.status)) return done(`run_${run.status}`);
  const step = run.graph.steps[job.index];
  if (!step || step.key !== job.stepKey) return done('step_gone');
  const rec = run.steps[step.key];
  // only a step the run scheduled runs (its record is written before its job is queued)
  if (!rec) return done('not_scheduled');
  if (rec.status === 'failed') return done('failed_before');
  if (rec.status === 'completed') {
    // a crash came between completing the step and queuing its successors
    await ports.queue.enqueueSteps(
      job.teamId,
      run.id,
      refsOf(run, nextSteps(run.graph, step.key, rec.exit ?? 'default')),
    );
    return done('completed_before');
  }
  try {
    return await execute(job, run, step, ports);
  } catch (err) {
    if (!isPermanent(err) && !lastAttempt) throw err;
    const error = {
      message: (err as Error).message,
      ...(err instanceof PetrelError ? { name: err.errorName } : {}),
    };
    if (await ports.runs.failStep(job.teamId, run.id, step.key, error, ports.clock.now()))
      ports.observer?.runFailed();
    return done('failed');
  }
}

async function complete(
  job: StepJob,
  run: RunState,
  key: string,
  exit: AutomationConnectionType,
  output: Record<string, unknown>,
  ports: EnginePorts,
): Promise<StepOutcome> {
  const next = nextSteps(run.graph, key, exit);
  const res = await ports.runs.completeStep(
    job.teamId,
    run.id,
    { key, exit, output },
    typed(run, next),
    ports.clock.now(),
  );
  if (res.runCompleted) ports.observer?.runCompleted();
  await ports.queue.enqueueSteps(job.teamId, run.id, refsOf(run, next));
  return done(res.applied ? 'completed' : 'completed_before');
}

async function context(job: StepJob, run: RunState, ports: EnginePorts): Promise<RunContext> {
  const contact = await ports.contacts.get(job.teamId, run.contactId);
  return { event: run.event.payload, contact, waitEvents: run.waitEvents };
}

function requireContact(contact: ContactRecord | null): ContactRecord {
  if (!contact) throw new PetrelError('not_found', 'the contact of this run no longer exists');
  return contact;
}

async function execute(
  job: StepJob,
  run: RunState,
  step: AutomationStep,
  ports: EnginePorts,
): Promise<StepOutcome> {
  const { teamId } = job;
  const rec = run.steps[step.key];
  const now = ports.clock.now();
  switch (step.type) {
    case 'trigger':
      return complete(
        job,
        run,
        step.key,
        'default',
        { event_id: run.event.id, event_name: run.event.name },
        ports,
      );

    case 'delay': {
      const resumeAt = rec?.status === 'waiting' ? Date.parse(String(rec.output?.resume_at)) : NaN;
      if (!Number.isNaN(resumeAt)) {
        if (now < resumeAt) return { kind: 'sleep', untilMs: resumeAt };
        return complete(job, run, step.key, 'default', { ...rec!.output }, ports);
      }
      const until = now + durationMs(step.config.duration);
      const output = { duration: step.config.duration, resume_at: new Date(until).toISOString() };
      if (!(await ports.runs.parkStep(teamId, run.id, step.key, output, null, now))) return done('run_over');
      return { kind: 'sleep', untilMs: until };
    }

    case 'wait_for_event': {
      const timeoutAt = rec?.status === 'waiting' ? Date.parse(String(rec.output?.timeout_at)) : NaN;
      if (!Number.isNaN(timeoutAt)) {
        if (now < timeoutAt) return { kind: 'sleep', untilMs: timeoutAt };
        const next = nextSteps(run.graph, step.key, 'timeout');
        const res = await ports.runs.resolveWait(
          teamId,
          run.id,
          step.key,
          { kind: 'timeout' },
          typed(run, next),
          now,
        );
        if (!res.won) {
          // the event came first: its dispatch queued the next steps (again here, in case it died)
          const taken = (await ports.runs.getRun(teamId, run.id))?.steps[step.key]?.exit;
          if (taken)
            await ports.queue.enqueueSteps(
              teamId,
              run.id,
              refsOf(run, nextSteps(run.graph, step.key, taken)),
            );
          return done('event_first');
        }
        if (res.runCompleted) ports.observer?.runCompleted();
        await ports.queue.enqueueSteps(teamId, run.id, refsOf(run, next));
        return done('timed_out');
      }
      // no timeout given: the longest wait allowed (Resend: waits never last forever)
      const until = now + durationMs(step.config.timeout ?? '30 days');
      const output = { event_name: step.config.event_name, timeout_at: new Date(until).toISOString() };
      const wait = { contactId: run.contactId, eventName: step.config.event_name };
      if (!(await ports.runs.parkStep(teamId, run.id, step.key, output, wait, now))) return done('run_over');
      return { kind: 'sleep', untilMs: until };
    }

    case 'condition': {
      const met = evaluateCondition(step.config, await context(job, run, ports));
      return complete(
        job,
        run,
        step.key,
        met ? 'condition_met' : 'condition_not_met',
        { result: met },
        ports,
      );
    }

    default:
      break;
  }

  // Steps that act: marked running first, so a run shows what it is doing.
  if (!(await ports.runs.startStep(teamId, run.id, step.key, now))) return done('run_over');
  const ctx = await context(job, run, ports);
  switch (step.type) {
    case 'send_email': {
      const contact = requireContact(ctx.contact);
      const c = step.config;
      // a send's variables are strings and numbers; a missing value leaves the template's fallback
      const variables = Object.fromEntries(
        Object.entries(c.template.variables ?? {}).flatMap(([k, v]) => {
          const value = resolveValue(v, ctx);
          if (value === undefined || value === null) return [];
          if (typeof value === 'string' || typeof value === 'number') return [[k, value]];
          return [[k, typeof value === 'boolean' ? String(value) : JSON.stringify(value)]];
        }),
      );
      const body = {
        to: contact.email,
        template: { id: c.template.id, variables },
        ...(c.from !== undefined && { from: c.from }),
        ...(c.subject !== undefined && { subject: c.subject }),
        ...(c.reply_to !== undefined && { reply_to: c.reply_to }),
        ...(c.topic_id !== undefined && c.topic_id !== null && { topic_id: c.topic_id }),
      };
      const res = await acceptEmails(
        {
          teamId,
          endpoint: 'single',
          body,
          mode: 'strict',
          idempotencyKey: stepIdempotencyKey(run.id, job.index, job.visit),
          clock: { now: () => now },
        },
        ports.accept,
      );
      const { id } = JSON.parse(res.body) as { id: string };
      return complete(job, run, step.key, 'default', { email_id: id }, ports);
    }
    case 'contact_update': {
      const contact = requireContact(ctx.contact);
      const c = step.config;
      const value = (v: unknown): unknown => resolveValue(v, ctx);
      const input: Record<string, unknown> = {};
      for (const k of ['first_name', 'last_name', 'unsubscribed'] as const) {
        const v = c[k] === undefined ? undefined : value(c[k]);
        if (v !== undefined)
          input[k] = k === 'unsubscribed' ? v === true || v === 'true' : v === null ? null : String(v);
      }
      if (c.properties) {
        input.properties = Object.fromEntries(
          Object.entries(c.properties)
            .map(([k, v]) => [k, value(v)] as const)
            .filter(([, v]) => v !== undefined),
        );
      }
      await updateContact(
        { teamId, idOrEmail: contact.id, input },
        { contacts: ports.contacts, properties: ports.properties },
      );
      return complete(
        job,
        run,
        step.key,
        'default',
        { contact_id: contact.id, updated: Object.keys(input) },
        ports,
      );
    }
    case 'contact_delete': {
      const id = await ports.contacts.remove(teamId, run.contactId);
      return complete(
        job,
        run,
        step.key,
        'default',
        { contact_id: run.contactId, deleted: id !== null },
        ports,
      );
    }
    case 'add_to_segment': {
      const res = await ports.contacts.setSegment(teamId, run.contactId, step.config.segment_id, 'add');
      if (res === 'no_contact') requireContact(null);
      if (res === 'no_segment')
        throw new PetrelError('not_found', `segment ${step.config.segment_id} not found`);
      return complete(job, run, step.key, 'default', { segment_id: idKey(step.config.segment_id) }, ports);
    }
    default:
      throw new Error(`unreachable step type ${(step as AutomationStep).type}`);
  }
}

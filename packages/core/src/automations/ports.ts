/**
 * Ports between the events API (an application sends a named event for a contact) and the
 * automation engine (runs started or resumed by those events). The events use-case validates and
 * records the event, resolves its contact, then hands it to {@link AutomationTriggers}; the engine's
 * adapter makes that hand-over durable (a queued job) before the API answers 202.
 */

import type {
  AutomationConnectionType,
  AutomationGraph,
  AutomationRunStatus,
  AutomationRunStepRecord,
  AutomationStatus,
} from '@petrel/contracts';

/** One event sent through `POST /events/send`, after validation and schema coercion. */
export interface ReceivedEvent {
  /** A UUIDv7 from `newId()`; the engine derives its job ids from it, so a redelivery is a no-op. */
  readonly id: string;
  readonly teamId: string;
  /** The event's name, as sent (`user.signed_up`). */
  readonly name: string;
  /** The contact the event is about: resolved, or created for an email, before the hand-over. */
  readonly contactId: string;
  /** The payload, coerced to the event's schema when it has one. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** ISO 8601. */
  readonly receivedAt: string;
}

/** Where received events go: the automation engine starts matching runs and resumes waiting ones. */
export interface AutomationTriggers {
  /** Resolves once the event is durably handed over (the API answers 202 only after it). */
  eventReceived(event: ReceivedEvent): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The engine's own ports: automations and their runs (AutomationsStore, AutomationRunsStore in
// packages/store), and the step jobs (AutomationQueue in packages/queue).

/** An automation as stored. */
export interface StoredAutomation {
  id: string;
  name: string;
  status: AutomationStatus;
  created_at: string;
  updated_at: string;
  graph: AutomationGraph;
}

export interface NewAutomation {
  name: string;
  status: AutomationStatus;
  graph: AutomationGraph;
}

export interface AutomationPatch {
  name?: string;
  status?: AutomationStatus;
  graph?: AutomationGraph;
}

export interface AutomationsPort {
  create(teamId: string, automation: NewAutomation): Promise<{ id: string }>;
  get(teamId: string, id: string): Promise<StoredAutomation | null>;
  /** False when there is no such automation. */
  update(teamId: string, id: string, patch: AutomationPatch): Promise<boolean>;
  /** False when there is no such automation. */
  remove(teamId: string, id: string): Promise<boolean>;
  /** The enabled automations whose trigger is `eventName`. */
  triggeredBy(teamId: string, eventName: string): Promise<StoredAutomation[]>;
}

/** A step of a run as stored: the wire record plus the exit it left by (once completed). */
export interface RunStepState extends AutomationRunStepRecord {
  exit?: AutomationConnectionType;
}

/** A run as stored: the graph it started with (later edits do not change a running run). */
export interface RunState {
  id: string;
  automationId: string;
  contactId: string;
  status: AutomationRunStatus;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** The event that started the run. */
  event: { id: string; name: string; payload: Record<string, unknown> };
  graph: AutomationGraph;
  /** Step records by key (a step has one once it was scheduled). */
  steps: Record<string, RunStepState>;
  /** Payloads of the events waits received, by event name (the latest per name). */
  waitEvents: Record<string, Record<string, unknown>>;
}

export interface NewRun {
  id: string;
  automationId: string;
  contactId: string;
  event: RunState['event'];
  graph: AutomationGraph;
  /** The trigger step's key: the run starts with it pending. */
  firstStep: { key: string; type: 'trigger' };
}

/** A step a completed one leads to: its key and step type (the job that runs it is named by both). */
export interface NextStep {
  key: string;
  type: string;
}

/** The event a waiting step waits for, of the run's contact. */
export interface StepWait {
  contactId: string;
  eventName: string;
}

/** What ended a wait. */
export type WaitOutcome =
  | { kind: 'event'; eventId: string; eventName: string; payload: Record<string, unknown> }
  | { kind: 'timeout' };

/**
 * A run's writes. Each is one atomic script in the team's slot, guarded by the run's status
 * (nothing moves once a run is over) and by the step's own status, so a step job run twice
 * (its worker died after writing) changes nothing the second time.
 */
export interface AutomationRunsPort {
  /** Creates the run (status running, the first step pending); false when it exists already. */
  createRun(teamId: string, run: NewRun, nowMs: number): Promise<boolean>;
  getRun(teamId: string, runId: string): Promise<RunState | null>;
  /** Marks a pending step running; false when the run is over. */
  startStep(teamId: string, runId: string, stepKey: string, nowMs: number): Promise<boolean>;
  /**
   * Marks the step completed with its output and exit, and the steps it leads to pending;
   * completes the run when nothing is left. `applied` is false when the step was completed
   * already or the run is over.
   */
  completeStep(
    teamId: string,
    runId: string,
    step: { key: string; exit: AutomationConnectionType; output: Record<string, unknown> },
    next: readonly NextStep[],
    nowMs: number,
  ): Promise<{ applied: boolean; runCompleted: boolean }>;
  /** Marks the step failed and the run failed; false when the run was over already. */
  failStep(
    teamId: string,
    runId: string,
    stepKey: string,
    error: Record<string, unknown>,
    nowMs: number,
  ): Promise<boolean>;
  /**
   * Marks the step waiting with `output`; with `wait`, also lists the run among the contact's
   * waits for that event. False when the run is over.
   */
  parkStep(
    teamId: string,
    runId: string,
    stepKey: string,
    output: Record<string, unknown>,
    wait: StepWait | null,
    nowMs: number,
  ): Promise<boolean>;
  /**
   * Ends a wait — by its event or its timeout, whichever comes first: a compare-and-set on the
   * step's open wait. The winner gets `won` (the step is completed with the exit of the outcome,
   * the next steps pending, an event's payload kept in the run's wait events).
   */
  resolveWait(
    teamId: string,
    runId: string,
    stepKey: string,
    outcome: WaitOutcome,
    next: readonly NextStep[],
    nowMs: number,
  ): Promise<{ won: boolean; runCompleted: boolean }>;
  /** The runs waiting for `eventName` of the contact: run id and step key. */
  waiting(
    teamId: string,
    contactId: string,
    eventName: string,
  ): Promise<{ runId: string; stepKey: string }[]>;
  /**
   * Removes a run's entry from the contact's wait set: after an event's dispatch queued the next
   * steps of the wait it ended, or when the entry's run is over (a cancel racing a new wait).
   */
  dropWait(
    teamId: string,
    contactId: string,
    eventName: string,
    runId: string,
    stepKey: string,
  ): Promise<void>;
  /** Cancels every running run of the automation (and their waits); how many were cancelled. */
  cancelRuns(teamId: string, automationId: string, nowMs: number): Promise<number>;
  /** Drops a deleted automation's run listing (its runs, cancelled first, expire on their own). */
  forgetRuns(teamId: string, automationId: string): Promise<void>;
}

/** A step job to schedule: its key and its index in the run's graph. */
export interface StepRef {
  key: string;
  index: number;
}

export interface AutomationStepQueue {
  /** Queues the steps' jobs; a step whose job exists keeps it (job ids are fixed). */
  enqueueSteps(teamId: string, runId: string, steps: readonly StepRef[]): Promise<void>;
  /**
   * Drops a step's sleeping job (a wait its event ended: its timeout has nothing left to do).
   * Best effort: a job that is running or gone stays as it is, and would find the step done.
   */
  removeStep?(runId: string, index: number): Promise<void>;
}

/** Counts and times of the engine (metrics). */
export interface AutomationObserver {
  runStarted(): void;
  runCompleted(): void;
  runFailed(): void;
}

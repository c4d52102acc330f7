/**
 * Use-cases of the broadcast endpoints: create (POST /broadcasts, optionally sending or
 * scheduling it at once), update (PATCH, drafts only), send (now or at `scheduled_at`), cancel,
 * delete and duplicate. The body has passed the wire schema (schemas.ts); these add the rules
 * that need stored state or the clock.
 *
 * Order of the two writes of a state change, chosen so that a crash between them never sends
 * what should not go out:
 *  - send: the record first (draft → scheduled), then the fan-out job. The job only ever acts on
 *    a `scheduled` record, so it cannot run ahead of the record; a crash between the two leaves a
 *    scheduled broadcast without a job, which a repeated send restores (the job id is fixed).
 *  - cancel and delete: the record first (→ canceled, or removed), then the job is dropped, best
 *    effort: a job left behind finds a canceled or missing broadcast and sends nothing. A delete
 *    that races the due time is decided by the record's compare-and-set (spec 3.1, 4.2): either
 *    it removes the `scheduled` broadcast before the fan-out takes it (not one email), or the
 *    fan-out moved it to `queued` first and the delete is refused, the broadcast left as it is.
 */
import type { BroadcastRecord, BroadcastStatus } from '@petrel/contracts';
import { fieldMessage, notFound, validationError, type PetrelError } from '@petrel/contracts';
import type { SegmentsReader } from '../audience/contacts/ports.js';
import { BROADCAST_MACHINE, guardAllows } from '../transitions/index.js';
import type { TopicsReader } from '../audience/ports.js';
import { parseScheduledAt } from '../validation/scheduled-at.js';
import { asList } from '../validation/fields.js';
import type { BroadcastContent, BroadcastsPort, CasResult, FanoutScheduler } from './ports.js';
import {
  BROADCAST_LIMITS,
  BROADCAST_MESSAGES,
  requestedSegment,
  type CreateBroadcastInput,
  type SendBroadcastInput,
  type UpdateBroadcastInput,
} from './schemas.js';

export interface BroadcastPorts {
  broadcasts: BroadcastsPort;
  segments: SegmentsReader;
  topics: TopicsReader;
  fanout: FanoutScheduler;
  clock: { now(): number };
}

type Cmd<T = object> = { teamId: string } & T;

/** How a refusal describes each status. */
const STATUS_WORDS: Record<BroadcastStatus, string> = {
  draft: 'is a draft',
  scheduled: 'is scheduled',
  queued: 'is sending',
  sent: 'was sent',
  canceled: 'was canceled',
  paused: 'is paused',
};

/** What each action needs of the status, said in its refusal. */
const ACTION_RULES = {
  updated: 'only a draft can be changed',
  sent: 'only a draft can be sent or scheduled',
  canceled: 'only a scheduled, sending or paused broadcast can be canceled',
  resumed: 'only a paused broadcast can be resumed',
  deleted: 'only a draft or a scheduled broadcast can be deleted',
} as const;

/**
 * The 422 of an action the broadcast's status does not allow, e.g. "broadcast is sending
 * (status queued) and cannot be deleted: only a draft or a scheduled broadcast can be deleted".
 */
export function statusRefusal(status: BroadcastStatus, action: keyof typeof ACTION_RULES): PetrelError {
  return validationError(
    `broadcast ${STATUS_WORDS[status]} (status ${status}) and cannot be ${action}: ${ACTION_RULES[action]}`,
  );
}

/** The record of a transition, or the error it answers with. */
function transitioned(res: CasResult, action: keyof typeof ACTION_RULES): BroadcastRecord {
  if (res.ok) return res.record;
  if (res.reason === 'not_found') throw notFound('Broadcast');
  throw statusRefusal(res.status, action);
}

/** The editable content of a broadcast record. */
export function broadcastContent(b: BroadcastContent): BroadcastContent {
  return {
    name: b.name,
    segment_id: b.segment_id,
    from: b.from,
    subject: b.subject,
    reply_to: b.reply_to,
    html: b.html,
    text: b.text,
    preview_text: b.preview_text,
    topic_id: b.topic_id,
  };
}

const hasText = (s: string | null): boolean => s !== null && s !== '';

/** `reply_to` as stored: an array, or null for none. */
function replyTo(value: string | string[] | null | undefined): string[] | null {
  const list = asList(value);
  return list.length > 0 ? list : null;
}

/** The segment's id as stored (segments are matched in any case), or a 422 naming the field. */
async function existingSegment(
  teamId: string,
  ref: { id: string; field: string },
  ports: Pick<BroadcastPorts, 'segments'>,
): Promise<string> {
  const segment = await ports.segments.get(teamId, ref.id);
  if (!segment) throw validationError(fieldMessage([ref.field], 'no such segment'));
  return segment.id;
}

async function existingTopic(
  teamId: string,
  topicId: string,
  ports: Pick<BroadcastPorts, 'topics'>,
): Promise<string> {
  const topic = await ports.topics.get(teamId, topicId);
  if (!topic) throw validationError(fieldMessage(['topic_id'], 'no such topic'));
  return topic.id;
}

/** When the broadcast is due: `scheduled_at` resolved against now, or now. */
function dueMs(scheduledAt: string | null | undefined, nowMs: number): number {
  if (scheduledAt === undefined || scheduledAt === null) return nowMs;
  const parsed = parseScheduledAt(scheduledAt, nowMs);
  if (!parsed.ok) throw validationError(fieldMessage(['scheduled_at'], parsed.message));
  return Date.parse(parsed.iso);
}

/** draft → scheduled, then the fan-out job (see the header for the order). */
async function schedule(teamId: string, id: string, due: number, ports: BroadcastPorts): Promise<void> {
  const res = await ports.broadcasts.schedule(teamId, id, due);
  if (!res.ok && res.reason === 'status' && res.status === 'scheduled') {
    // A repeated send of a scheduled broadcast: make sure its job exists (a crash between the
    // two writes of the first send may have lost it; the fixed job id makes this a no-op
    // otherwise), then refuse as for any other status.
    const current = await ports.broadcasts.get(teamId, id);
    if (current?.status === 'scheduled' && current.scheduled_at !== null)
      await ports.fanout.schedule(teamId, id, Date.parse(current.scheduled_at));
  }
  transitioned(res, 'sent');
  await ports.fanout.schedule(teamId, id, due);
}

export async function createBroadcast(
  cmd: Cmd<{ input: CreateBroadcastInput }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const { teamId, input } = cmd;
  const nowMs = ports.clock.now();
  // the time first: a bad scheduled_at must not leave a draft behind
  const due = input.send === true ? dueMs(input.scheduled_at, nowMs) : undefined;
  const segmentId = await existingSegment(teamId, requestedSegment(input)!, ports);
  const topicId = input.topic_id ? await existingTopic(teamId, input.topic_id, ports) : null;
  const record = await ports.broadcasts.create(teamId, {
    name: input.name ?? null,
    segment_id: segmentId,
    from: input.from,
    subject: input.subject,
    reply_to: replyTo(input.reply_to),
    html: input.html ?? null,
    text: input.text ?? null,
    preview_text: input.preview_text ?? null,
    topic_id: topicId,
  });
  if (due !== undefined) await schedule(teamId, record.id, due, ports);
  return { id: record.id };
}

export async function updateBroadcast(
  cmd: Cmd<{ id: string; input: UpdateBroadcastInput }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const { teamId, id, input } = cmd;
  const current = await ports.broadcasts.get(teamId, id);
  if (!current) throw notFound('Broadcast');
  if (!guardAllows(BROADCAST_MACHINE.guards.editable, current.status))
    throw statusRefusal(current.status, 'updated');
  const patch: Partial<BroadcastContent> = {};
  const segment = requestedSegment(input);
  if (segment) patch.segment_id = await existingSegment(teamId, segment, ports);
  if (input.topic_id !== undefined)
    patch.topic_id = input.topic_id === null ? null : await existingTopic(teamId, input.topic_id, ports);
  if (input.from !== undefined) patch.from = input.from;
  if (input.subject !== undefined) patch.subject = input.subject;
  if (input.reply_to !== undefined) patch.reply_to = replyTo(input.reply_to);
  for (const field of ['name', 'preview_text', 'html', 'text'] as const)
    if (input[field] !== undefined) patch[field] = input[field];
  const next = { ...broadcastContent(current), ...patch };
  if (!hasText(next.html) && !hasText(next.text))
    throw validationError(fieldMessage([], BROADCAST_MESSAGES.noContent));
  const record = transitioned(await ports.broadcasts.update(teamId, current.id, patch), 'updated');
  return { id: record.id };
}

/** Sends a draft now, or schedules it for `scheduled_at`. */
export async function sendBroadcast(
  cmd: Cmd<{ id: string; input: SendBroadcastInput }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const { teamId, id, input } = cmd;
  const due = dueMs(input.scheduled_at, ports.clock.now());
  const current = await ports.broadcasts.get(teamId, id);
  if (!current) throw notFound('Broadcast');
  // a segment deleted since the draft was written would make a broadcast to nobody
  if (current.status === 'draft')
    await existingSegment(teamId, { id: current.segment_id, field: 'segment_id' }, ports);
  await schedule(teamId, current.id, due, ports);
  return { id: current.id };
}

/**
 * paused → queued (Petrel extension, POST /broadcasts/:id/resume): a person looked at why the
 * protection rule paused it and lets it go on. Its fan-out job is scheduled again (now): it goes
 * on from its cursor, or finds no page left and finishes it (→ sent); its held emails send at
 * their next look (BROADCAST_HOLD_RECHECK_MS). The counters are kept: a resumed broadcast whose
 * rates stay over its thresholds pauses again at the next bounce or complaint.
 */
export async function resumeBroadcast(
  cmd: Cmd<{ id: string }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const record = transitioned(await ports.broadcasts.resume(cmd.teamId, cmd.id), 'resumed');
  await ports.fanout.schedule(cmd.teamId, record.id, ports.clock.now());
  return { id: record.id };
}

/** scheduled | queued | paused → canceled: what has not been sent yet never is. */
export async function cancelBroadcast(
  cmd: Cmd<{ id: string }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const record = transitioned(await ports.broadcasts.cancel(cmd.teamId, cmd.id), 'canceled');
  await ports.fanout.unschedule(cmd.teamId, record.id).catch(() => undefined);
  return { id: record.id };
}

/**
 * Removes a draft, or a scheduled broadcast and its fan-out job (not one of its emails is sent);
 * a broadcast that is sending, sent or canceled stays as it is (422 saying why). Spec 3.1, 4.2.
 */
export async function deleteBroadcast(
  cmd: Cmd<{ id: string }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const was = transitioned(await ports.broadcasts.remove(cmd.teamId, cmd.id), 'deleted');
  if (was.status === 'scheduled') await ports.fanout.unschedule(cmd.teamId, was.id).catch(() => undefined);
  return { id: was.id };
}

/** A new draft with the same content, named "<name> (copy)" within 70 characters (as Resend). */
export async function duplicateBroadcast(
  cmd: Cmd<{ id: string }>,
  ports: BroadcastPorts,
): Promise<{ id: string }> {
  const source = await ports.broadcasts.get(cmd.teamId, cmd.id);
  if (!source) throw notFound('Broadcast');
  const name = source.name === null ? null : `${source.name} (copy)`.slice(0, BROADCAST_LIMITS.duplicateName);
  const copy = await ports.broadcasts.create(cmd.teamId, { ...broadcastContent(source), name });
  return { id: copy.id };
}

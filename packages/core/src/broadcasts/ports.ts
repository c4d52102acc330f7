/**
 * The ports of the broadcast use-cases — the API side (create, update, send/schedule, cancel,
 * delete, duplicate) and the fan-out side (a scheduled broadcast becomes one email per eligible
 * contact on the broadcast send lane) — and what the send path reads of a broadcast. Declared
 * here so core imports no Redis or BullMQ code: packages/store implements BroadcastsPort and
 * BroadcastEmailsWriter, packages/queue the FanoutScheduler, apps/scheduler runs the fan-out.
 *
 * State changes are compare-and-set on the record (one Lua script each): a delete racing the due
 * time either wins (the fan-out then finds no record and sends nothing) or fails because the
 * fan-out already moved the broadcast to `queued` — never both.
 */
import type { BroadcastCounts, BroadcastRecord, BroadcastStatus, ContactRecord } from '@petrel/contracts';
import type { ContactValues, PropertyFallback } from './personalize.js';

/** The editable content of a broadcast (everything the API may set while it is a draft). */
export type BroadcastContent = Pick<
  BroadcastRecord,
  'name' | 'segment_id' | 'from' | 'subject' | 'reply_to' | 'html' | 'text' | 'preview_text' | 'topic_id'
>;

/** Where a fan-out is in its segment: the last contact handed out (members are ordered). */
export interface FanoutCursor {
  /** Score (contact creation ms) and id of the last member done. */
  score: number;
  contactId: string;
}

export type CasResult =
  | { ok: true; record: BroadcastRecord }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'status'; status: BroadcastStatus };

export interface BroadcastsPort {
  create(teamId: string, content: BroadcastContent): Promise<BroadcastRecord>;
  get(teamId: string, id: string): Promise<BroadcastRecord | null>;
  list(
    teamId: string,
    page: { limit: number; after?: string; before?: string },
  ): Promise<{ items: BroadcastRecord[]; hasMore: boolean } | null>;
  /** Content changes; only a draft. */
  update(teamId: string, id: string, patch: Partial<BroadcastContent>): Promise<CasResult>;
  /** draft → scheduled, due at `dueMs` (now for "send now"). */
  schedule(teamId: string, id: string, dueMs: number): Promise<CasResult>;
  /** scheduled | queued → canceled. */
  cancel(teamId: string, id: string): Promise<CasResult>;
  /** Removes a draft or scheduled broadcast (record and listing); anything else is refused. */
  remove(teamId: string, id: string): Promise<CasResult>;
  /** paused → queued (a person resumed it; its fan-out job is scheduled again to go on or finish). */
  resume(teamId: string, id: string): Promise<CasResult>;

  // fan-out side ------------------------------------------------------------------------------
  /**
   * scheduled → queued, stamping the fan-out start (fixed: the emails' deterministic ids use
   * it); a broadcast already `queued` (a fan-out resumed after a crash) is returned as it is with
   * its cursor. Anything else (canceled, deleted, sent) → not ok: nothing to do.
   */
  startFanout(
    teamId: string,
    id: string,
    nowMs: number,
  ): Promise<
    | { ok: true; record: BroadcastRecord; startedMs: number; cursor: FanoutCursor | null }
    | { ok: false; reason: 'not_found' | 'status' }
  >;
  /**
   * Records progress after a page, moving the cursor `step.from` → `step.to`, only while the
   * broadcast is `queued` and its stored cursor is still `step.from` (compare-and-set): two runs of
   * one fan-out (a job taken for stalled while its run went on, on a starved machine) cannot both
   * count a page. `not_queued`: canceled; `moved`: another run checkpointed first.
   */
  checkpoint(teamId: string, id: string, step: FanoutStep, add: BroadcastCounts): Promise<FanoutCheckpoint>;
  /** queued → sent (fan-out finished), `sent_at` = now. */
  finishFanout(teamId: string, id: string, nowMs: number): Promise<boolean>;
}

/** A page's move of the fan-out cursor: from the checkpoint it started at (null: the first). */
export interface FanoutStep {
  from: FanoutCursor | null;
  to: FanoutCursor;
}

export type FanoutCheckpoint = 'ok' | 'not_queued' | 'moved';

/** The fan-out job of a broadcast (BullMQ, delayed until due; its id derives from the broadcast's). */
export interface FanoutScheduler {
  schedule(teamId: string, broadcastId: string, dueMs: number): Promise<void>;
  /** Removes the job if it has not started; harmless when there is none. */
  unschedule(teamId: string, broadcastId: string): Promise<void>;
}

/** A page of a segment's members in a stable order (contact creation time, then id). */
export interface SegmentMembersPager {
  page(
    teamId: string,
    segmentId: string,
    after: FanoutCursor | null,
    limit: number,
  ): Promise<{ contacts: (ContactRecord & { score: number })[] }>;
}

/** One email of a broadcast, as the fan-out creates it. */
export interface BroadcastEmail {
  /** Deterministic from (team, broadcast, contact, fan-out start): a resumed fan-out recreates the same id. */
  emailId: string;
  contactId: string;
  /** The contact's address: the email's only recipient. */
  to: string;
  /** The broadcast's subject personalised for the contact (personalize.ts `renderPersonal`). */
  subject: string;
  /** What the content's placeholders read of the contact, kept with the email; null: nothing. */
  contactValues: ContactValues | null;
}

/** The team's contact property definitions, for their fallback values (ContactPropertiesStore). */
export interface PropertyFallbacks {
  all(teamId: string): Promise<readonly PropertyFallback[]>;
}

export interface BroadcastEmailsWriter {
  /**
   * Creates the email records of one page (an existing id is left alone) on the broadcast lane
   * and enqueues their send jobs (job id = email id, so a resumed page adds nothing twice).
   * Returns how many were newly created.
   */
  createAndEnqueue(
    teamId: string,
    broadcast: BroadcastRecord,
    emails: readonly BroadcastEmail[],
  ): Promise<number>;
}

/**
 * The protection rule's side of a broadcast (protection.ts): the counters written with its
 * emails' events, and the pause.
 */
export interface BroadcastProtectionPort {
  /** Sent, hard-bounced and complained emails of the broadcast, as counted when recorded. */
  protectionCounts(teamId: string, broadcastId: string): Promise<ProtectionCounts>;
  /** queued | sent → paused with `paused_reason` (compare-and-set: only the first pause wins). */
  pause(teamId: string, id: string, reason: string): Promise<CasResult>;
}

/** What the send path reads of a broadcast for one of its emails (and the pause it may cause). */
export interface BroadcastReader extends BroadcastProtectionPort {
  /** The broadcast's content and status (content may be cached: it never changes once sent). */
  forSend(
    teamId: string,
    broadcastId: string,
  ): Promise<{ status: BroadcastStatus; content: BroadcastContent } | null>;
}

/** What the rule reads: counters kept per broadcast (or per team) as the events are recorded. */
export interface ProtectionCounts {
  /** Emails handed to a server (or the simulator) successfully: `email.sent`. */
  sent: number;
  /** `email.bounced` with `bounce.type` Permanent. */
  hardBounced: number;
  /** `email.complained`. */
  complained: number;
}

/**
 * The fan-out of a broadcast: its segment, page by page, becomes one email per eligible contact
 * on the broadcast send lane. The scheduler runs it as the broadcast's BullMQ job when it is due;
 * a run interrupted anywhere (a killed process, Redis gone) is simply run again and resumes at
 * the last checkpoint without creating any email twice:
 *
 *  1. `startFanout` moves the broadcast scheduled → queued and fixes the fan-out start
 *     (`startedMs`), or hands back a `queued` one's cursor; anything else (canceled, deleted,
 *     sent) means there is nothing to do.
 *  2. Per page of {@link FANOUT_PAGE_SIZE} members after the cursor (creation order, then id):
 *     one read of the recipients' states; unsubscribed, suppressed and (with a topic) not
 *     subscribed contacts are skipped, with the same rule the send path applies
 *     (audience/recipient-decision.ts) — which checks again at send time, so a contact who
 *     unsubscribes after the fan-out still gets nothing.
 *  3. The page's emails get ids derived from (team, broadcast, contact, startedMs): a page redone
 *     after a crash computes the same ids, and the writer leaves existing records and jobs alone.
 *     Each email gets what its placeholders read of the contact now (personalize.ts
 *     `contactValues`, a few bytes) and its subject rendered from them: every later read of the
 *     email (listings, timelines, webhooks, GET /emails/:id) and its send render the same.
 *  4. The checkpoint after the page's jobs exist records the cursor and the counts; it answers
 *     false once the broadcast is no longer `queued` (canceled): the fan-out stops there. What
 *     was enqueued before a cancel is stopped at send time (the email job re-reads the status).
 *  5. After the last page `finishFanout` moves queued → sent.
 *
 * With a pacer, each page after the first is sized (and preceded by a pause) by how busy the
 * transactional lane is: pacing.ts. The checkpoints do not depend on the page size, so a run
 * resumed at another pace computes the same ids.
 *
 * Memory holds one page, and the next one being read, whatever the segment size. Core only: the
 * ports are ports.ts.
 */
import type { BroadcastCounts } from '@petrel/contracts';
import type { RecipientStates } from '../audience/ports.js';
import { decideRecipient } from '../audience/recipient-decision.js';
import { deterministicEmailId } from '../kernel/ids.js';
import { fanoutPace, type FanoutPace, type FanoutPaceRule } from './pacing.js';
import { contactValues, placeholderFields, placeholderNeeds, renderPersonal } from './personalize.js';
import type {
  BroadcastEmail,
  BroadcastEmailsWriter,
  BroadcastsPort,
  FanoutCursor,
  PropertyFallbacks,
  SegmentMembersPager,
} from './ports.js';

/** Segment members handled per page (one recipient-state read, one write, one checkpoint each). */
export const FANOUT_PAGE_SIZE = 1_000;
/** A progress line every this many pages (100,000 contacts at the default page size). */
export const FANOUT_LOG_EVERY_PAGES = 100;

/** The fan-out job's payload, as parsed by the scheduler. */
export interface FanoutJob {
  teamId: string;
  broadcastId: string;
}

/** How far a run got: counts of this run only (a resumed run starts from zero). */
export interface FanoutProgress {
  teamId: string;
  broadcastId: string;
  pages: number;
  counts: BroadcastCounts;
  /** Contacts handled per second since this run started. */
  contactsPerSecond: number;
}

/** Logs and metrics, kept out of the use-case. Must not throw. */
export interface FanoutObserver {
  /** The run took the broadcast (`resumed`: it was already `queued`, a crashed run's). */
  started(job: FanoutJob, resumed: boolean): void;
  /** Every {@link FanoutPorts.logEveryPages} pages. */
  progress(progress: FanoutProgress): void;
  /** The run ended: the segment is done (`sent`), or it stopped (`canceled`, not runnable). */
  ended(outcome: FanoutOutcome, progress: FanoutProgress): void;
  /** With a pacer: the pace chosen for the next page (pacing.ts), before its pause. */
  paced?(pace: FanoutPace): void;
}

/** How busy the transactional lane is, read before each page (pacing.ts). */
export interface FanoutPacer {
  rule: FanoutPaceRule;
  /** The transactional lane's jobs waiting or running now. */
  pressure(): Promise<number>;
  /** The pause before a paced page. */
  sleep(ms: number): Promise<void>;
}

export interface FanoutPorts {
  broadcasts: Pick<BroadcastsPort, 'startFanout' | 'checkpoint' | 'finishFanout'>;
  members: SegmentMembersPager;
  recipients: RecipientStates;
  emails: BroadcastEmailsWriter;
  /** Read once per run, only when the content uses custom properties (their fallbacks). */
  contactProperties: PropertyFallbacks;
  clock: { now(): number; monotonicMs(): number };
  observer: FanoutObserver;
  /** Default {@link FANOUT_PAGE_SIZE}: the page at full speed. */
  pageSize?: number;
  /** Adaptive pacing (pacing.ts); without it every page is full and none waits. */
  pacer?: FanoutPacer;
  /** Default {@link FANOUT_LOG_EVERY_PAGES}. */
  logEveryPages?: number;
  /** True once the process is shutting down: the run stops after its next checkpoint (`paused`). */
  shouldStop?: () => boolean;
}

export type FanoutOutcome =
  /** Every page done; the broadcast is `sent`. */
  | { kind: 'sent' }
  /** The broadcast left `queued` during the run (canceled): the rest of the segment is not sent. */
  | { kind: 'canceled' }
  /** Stopped at a checkpoint for a shutdown: the broadcast stays `queued`; run it again to go on. */
  | { kind: 'paused' }
  /** Another run of the same fan-out moved the checkpoint first: this one stops, that one goes on. */
  | { kind: 'superseded' }
  /** Nothing to do: the broadcast is gone, canceled before its time, or already sent. */
  | { kind: 'not_runnable'; reason: 'not_found' | 'status' };

/** The id of a broadcast's email to one contact: the same in every run of the same fan-out. */
export function broadcastEmailId(
  teamId: string,
  broadcastId: string,
  contactId: string,
  startedMs: number,
): string {
  return deterministicEmailId(teamId, `${broadcastId}:${contactId}`, 'broadcast', 0, startedMs);
}

/** Runs (or resumes) the fan-out of one broadcast; errors of the ports propagate (the job retries). */
export async function runBroadcastFanout(job: FanoutJob, ports: FanoutPorts): Promise<FanoutOutcome> {
  const { teamId, broadcastId } = job;
  const pageSize = ports.pageSize ?? FANOUT_PAGE_SIZE;
  const logEvery = ports.logEveryPages ?? FANOUT_LOG_EVERY_PAGES;
  const t0 = ports.clock.monotonicMs();
  const run: FanoutProgress = {
    teamId,
    broadcastId,
    pages: 0,
    counts: { total: 0, enqueued: 0, skipped: 0 },
    contactsPerSecond: 0,
  };
  const progress = (): FanoutProgress => {
    const seconds = (ports.clock.monotonicMs() - t0) / 1000;
    run.contactsPerSecond = seconds > 0 ? Math.round(run.counts.total / seconds) : 0;
    return { ...run, counts: { ...run.counts } };
  };
  const end = (outcome: FanoutOutcome): FanoutOutcome => {
    ports.observer.ended(outcome, progress());
    return outcome;
  };

  const start = await ports.broadcasts.startFanout(teamId, broadcastId, ports.clock.now());
  if (!start.ok) return end({ kind: 'not_runnable', reason: start.reason });
  const { record: broadcast, startedMs } = start;
  let cursor: FanoutCursor | null = start.cursor;
  ports.observer.started(job, cursor !== null);
  const topicId = broadcast.topic_id;
  const sources = [broadcast.subject, broadcast.html, broadcast.text];
  const fields = placeholderFields(sources);
  const defs = placeholderNeeds(sources).properties ? await ports.contactProperties.all(teamId) : [];

  let size = pageSize;
  const pageAfter = (after: FanoutCursor | null) => {
    const page = ports.members.page(teamId, broadcast.segment_id, after, size);
    page.catch(() => undefined); // awaited below, or dropped when the run ends first
    return page;
  };
  // the next page's size, after a pause when the transactional lane is busy (pacing.ts)
  const pace = async (): Promise<number> => {
    const pacer = ports.pacer;
    if (!pacer) return pageSize;
    const decided = fanoutPace(await pacer.pressure(), pacer.rule, pageSize);
    ports.observer.paced?.(decided);
    if (decided.delayMs > 0) await pacer.sleep(decided.delayMs);
    return decided.pageSize;
  };
  let next = pageAfter(cursor);
  for (;;) {
    const requested = size;
    const { contacts } = await next;
    if (contacts.length === 0) break;
    const last = contacts[contacts.length - 1]!;
    const more = contacts.length === requested;
    // the next page is read while this one is written (reads only: two pages in memory at most)
    if (more) {
      size = await pace();
      next = pageAfter({ score: last.score, contactId: last.id });
    }
    const { topicDefault, states } = await ports.recipients.read(
      teamId,
      contacts.map((c) => c.email),
      topicId,
    );
    const topic = topicId === null ? null : { id: topicId, default: topicDefault };
    const emails: BroadcastEmail[] = [];
    contacts.forEach((c, i) => {
      if (!decideRecipient(states[i]!, topic, true).send) return;
      const values = contactValues(fields, c, defs);
      emails.push({
        emailId: broadcastEmailId(teamId, broadcastId, c.id, startedMs),
        contactId: c.id,
        to: c.email,
        subject: renderPersonal({ subject: broadcast.subject }, c.email, values, null).subject,
        contactValues: values,
      });
    });
    if (emails.length > 0) await ports.emails.createAndEnqueue(teamId, broadcast, emails);
    const step = { from: cursor, to: { score: last.score, contactId: last.id } };
    cursor = step.to;
    // Every email of the page is counted, created now or by a run that died before this
    // checkpoint: the counts then say what the segment got, however often a page was redone.
    const add: BroadcastCounts = {
      total: contacts.length,
      enqueued: emails.length,
      skipped: contacts.length - emails.length,
    };
    const checkpoint = await ports.broadcasts.checkpoint(teamId, broadcastId, step, add);
    // another run of this fan-out counted the page first (its emails are the same ids): it goes on
    if (checkpoint === 'moved') return end({ kind: 'superseded' });
    run.pages += 1;
    run.counts.total += add.total;
    run.counts.enqueued += add.enqueued;
    run.counts.skipped += add.skipped;
    if (checkpoint === 'not_queued') return end({ kind: 'canceled' });
    if (run.pages % logEvery === 0) ports.observer.progress(progress());
    if (!more) break;
    if (ports.shouldStop?.()) return end({ kind: 'paused' });
  }
  // false: canceled after the last checkpoint — the emails exist and their sends check the status
  const finished = await ports.broadcasts.finishFanout(teamId, broadcastId, ports.clock.now());
  return end(finished ? { kind: 'sent' } : { kind: 'canceled' });
}

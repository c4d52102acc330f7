/**
 * The emails of a broadcast, a fan-out page at a time (BroadcastEmailsWriter): the records, in
 * the EmailsStore layout, then their send jobs on the `broadcast` lane.
 *
 * A record is an ordinary email record — status `queued`, lane `broadcast`, `broadcast_id`,
 * `contact_id`, from / reply_to copied from the broadcast and the subject personalised for the
 * contact (by the fan-out) so listings, GET /emails/:id and the webhooks describe it as sent, `to`
 * the contact's address, `contact_values` (what the content's placeholders read of the contact,
 * when they read any: a few bytes), an `email.queued` timeline entry and a listing entry —
 * without html or text: the worker takes the content from the broadcast when it sends
 * (BroadcastReader) and renders it with the contact values, as GET /emails/:id does, so a
 * broadcast of a million emails stores its body once.
 *
 * Per {@link BROADCAST_EMAILS_SCRIPT_CHUNK} emails, the records first (one script in the team's
 * slot, an existing record left alone), then their jobs (job id = email id: an email whose job
 * exists keeps it); the chunks of a page run concurrently. Unlike acceptance there is no outbox entry: the fan-out checkpoints only
 * after this resolves, so a crash between records and jobs is repaired by the resumed fan-out,
 * which redoes the page (docs/architecture.md, "Broadcasts").
 */
import type { BroadcastRecord } from '@petrel/contracts';
import {
  emailSearchTerms,
  fromDomain,
  messageIdFor,
  newId,
  type BroadcastEmail,
  type BroadcastEmailsWriter,
  type SendJobEnqueuer,
} from '@petrel/core';
import { statusRank } from './emails.store.js';
import { EmailSearch } from './email-search.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { TeamStore } from './team-store.js';
import { countUsage } from './usage.store.js';
import { pipeline } from './scripts.js';
import { queueReceivedCounts } from './email-metrics.store.js';

/**
 * Emails per script call: a script blocks Redis while it runs, so a page is written in chunks
 * that each take well under a millisecond or two, letting transactional traffic in between.
 */
export const BROADCAST_EMAILS_SCRIPT_CHUNK = 250;

export class BroadcastEmailsStore extends TeamStore implements BroadcastEmailsWriter {
  constructor(
    redis: RedisClient,
    keys: Keys,
    private readonly queues: SendJobEnqueuer,
    private readonly retentionMs: number,
    clock: { now(): number } = Date,
    /** How long the hourly counters are kept (DASHBOARD_STATS_RETENTION_DAYS): `received` goes there. */
    private readonly statsRetentionMs: number = retentionMs,
  ) {
    super(redis, keys, clock);
    this.search = new EmailSearch(this.redis, keys, retentionMs, clock);
  }

  private readonly search: EmailSearch;

  async createAndEnqueue(
    teamId: string,
    broadcast: BroadcastRecord,
    emails: readonly BroadcastEmail[],
  ): Promise<number> {
    if (emails.length === 0) return 0;
    const nowMs = this.clock.now();
    const createdAt = new Date(nowMs).toISOString();
    // the sending domain (GET /emails/metrics counts per domain)
    const domain = fromDomain(broadcast.from) ?? '';
    // content = head + the email's own part (`to` and subject) + tail: what every email of the
    // broadcast shares is built once
    const head = `{"from":${JSON.stringify(broadcast.from)},"to":`;
    const tail = `,${JSON.stringify({
      cc: [],
      bcc: [],
      reply_to: broadcast.reply_to ?? [],
      headers: {},
      tags: [],
      ...(broadcast.topic_id !== null && { topic_id: broadcast.topic_id }),
    }).slice(1)}`;
    const shared = [
      'team_id', teamId,
      'created_at', createdAt,
      'created_ms', String(nowMs),
      'attempts', '0',
      'status', 'queued',
      'status_rank', String(statusRank('queued')),
      'lane', 'broadcast',
      'scheduled_at', '',
      'broadcast_id', broadcast.id,
      'from_domain', domain,
    ]; // prettier-ignore
    // by recipient (and status) only: every email of a broadcast has the broadcast's subject, and
    // a subject's words would cost the fan-out a write per word per contact
    const terms = { cc: [], bcc: [], tags: [], subject: '' };
    const writes: Promise<number>[] = [];
    for (let i = 0; i < emails.length; i += BROADCAST_EMAILS_SCRIPT_CHUNK) {
      const chunk = emails.slice(i, i + BROADCAST_EMAILS_SCRIPT_CHUNK);
      const n = chunk.length;
      const keys: string[] = [this.keys.emails(teamId)];
      const args: (string | number)[] = [
        n,
        nowMs,
        this.retentionMs,
        head,
        tail,
        shared.length / 2,
        ...shared,
      ];
      for (const e of chunk) keys.push(this.keys.email(teamId, e.emailId));
      for (const e of chunk) keys.push(this.keys.emailEvents(teamId, e.emailId));
      keys.push(this.keys.unfinishedEmails(teamId, 'broadcast')); // the stuck-email watchdog's index
      for (const e of chunk) {
        const event = {
          id: newId(nowMs),
          type: 'email.queued',
          created_at: createdAt,
          teamId,
          // the email's first event: its record's `seq` counter starts at 1 (the script sets it)
          data: { email_id: e.emailId, broadcast_id: broadcast.id, sequence: 1 },
        };
        args.push(
          e.emailId,
          e.contactId,
          messageIdFor(e.emailId, broadcast.from),
          `${JSON.stringify([e.to])},"subject":${JSON.stringify(e.subject)}`,
          JSON.stringify(event),
          e.contactValues === null ? '' : JSON.stringify(e.contactValues),
        );
      }
      // each chunk's jobs right after its records (never before: a job finding no record would
      // end without sending); the chunks run side by side, so Redis writes records of one while
      // BullMQ encodes the jobs of another
      writes.push(
        this.redis.petrelCreateBroadcastEmails(keys.length, ...keys, ...args).then(async (n) => {
          // GET /usage's emails sent (records created by this chunk: a redone page counts none)
          await countUsage(this.redis, this.keys, teamId, 'emails-sent', n, this.clock.now());
          // GET /emails/metrics's `received` (records created by this chunk: a redone page counts none)
          if (n > 0) {
            const batch = pipeline(this.redis, 'BroadcastEmails.received');
            queueReceivedCounts(
              batch,
              this.keys,
              teamId,
              nowMs,
              this.statsRetentionMs,
              new Map([[domain, n]]),
              broadcast.id,
            );
            await batch.exec();
          }
          // the list page's search indexes, before the jobs (email-search.ts)
          await this.search.index(
            teamId,
            chunk.map((e) => ({
              id: e.emailId,
              terms: emailSearchTerms({ ...terms, to: [e.to] }),
              status: 'queued' as const,
            })),
            nowMs,
          );
          await this.queues.enqueue(
            'broadcast',
            chunk.map((e) => ({ teamId, emailId: e.emailId })),
          );
          return n;
        }),
      );
    }
    return (await Promise.all(writes)).reduce((a, b) => a + b, 0);
  }
}

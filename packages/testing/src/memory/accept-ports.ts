/**
 * In-memory ports of the accept-emails use-case, for unit tests of it and of its stages: an
 * idempotency store with the Redis store's claim semantics (no lock expiry), a commit that keeps
 * records, jobs and the idempotency completion together (or fails as a whole when told), and a
 * remote-attachment fetcher that serves scripted URLs. The preparation runs core's real stages
 * (`acceptPreparer`) over MemoryTemplates and MemoryAttachmentFetcher unless a test replaces it.
 */
import { isGroupSpec, PetrelError, type EmailContent, type EmailEvent } from '@petrel/contracts';
import {
  acceptPreparer,
  commitAcceptance,
  type AcceptedEmail,
  type AcceptPorts,
  type AttachmentFetcher,
  type AttachmentFetchLimits,
  type ClaimResult,
  type Clock,
  type FetchedAttachment,
  type IdempotencyPort,
  type Preparer,
  type StoredResponse,
} from '@petrel/core';
import { emailToDeliver } from './deliver-ports.js';
import { MemoryTemplates } from './templates-ports.js';
import { MemoryTopics } from './topics.js';

/** A validated email as acceptance stages see it: the plain send of `emailToDeliver`, no attachments. */
export function emailContent(over: Partial<EmailContent> = {}): EmailContent {
  return { ...emailToDeliver().content, attachments: [], ...over };
}

/** An email as acceptance hands it to the commit: due now (queued), or in `delayMs` (scheduled). */
export function acceptedEmail(id: string, event: EmailEvent, delayMs = 0): AcceptedEmail {
  return {
    index: 0,
    id,
    content: emailContent(),
    status: delayMs > 0 ? 'scheduled' : 'queued',
    delayMs,
    messageId: `<${id}@acme.test>`,
    event,
  };
}

interface KeyRecord {
  fingerprint: string;
  startedMs: number;
  done?: StoredResponse;
}

/** The default clock of the kit: it stands at 1,000 ms, so claim times and ids repeat from run to run. */
const STILL_CLOCK: Pick<Clock, 'now'> = { now: () => 1_000 };

export class MemoryIdempotency implements IdempotencyPort {
  readonly keys = new Map<string, KeyRecord>();
  readonly calls = { claim: 0, lookup: 0, release: 0 };
  readonly outcomes: ClaimResult['outcome'][] = [];

  /** `clock` stamps claims (the ids of a keyed request derive from it). */
  constructor(private readonly clock: Pick<Clock, 'now'> = STILL_CLOCK) {}

  async claim(teamId: string, key: string, fingerprint: string): Promise<ClaimResult> {
    this.calls.claim++;
    const token = `${teamId}\n${key}`;
    const rec = this.keys.get(token);
    if (!rec) {
      const startedMs = this.clock.now();
      this.keys.set(token, { fingerprint, startedMs });
      return { outcome: 'proceed', token, startedMs };
    }
    if (rec.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    if (!rec.done) return { outcome: 'in_flight' };
    return { outcome: 'replay', ...rec.done };
  }

  async lookup(teamId: string, key: string, fingerprint: string): Promise<StoredResponse | undefined> {
    this.calls.lookup++;
    const rec = this.keys.get(`${teamId}\n${key}`);
    return rec && rec.fingerprint === fingerprint ? rec.done : undefined;
  }

  async release(token: unknown): Promise<void> {
    this.calls.release++;
    this.keys.delete(token as string);
  }

  fingerprint(endpoint: string, body: unknown): string {
    return `${endpoint} ${JSON.stringify(body)}`;
  }

  onIdempotency(outcome: ClaimResult['outcome']): void {
    this.outcomes.push(outcome);
  }

  /** The commit's part: the response stored under a claimed key. */
  complete(token: unknown, response: StoredResponse): void {
    const rec = this.keys.get(token as string);
    if (!rec) throw new Error('completing a key that is not claimed');
    rec.done = response;
  }
}

/** A job as the commit would enqueue it, one per email (`group`: the group job that sends it). */
export interface MemorySendJob {
  teamId: string;
  emailId: string;
  delayMs: number;
  group?: string;
}

/** Core's commit (`commitAcceptance`: stage → enqueue → clear) over records and jobs in memory. */
export class MemoryAcceptCommit {
  readonly records: (AcceptedEmail & { teamId: string })[] = [];
  readonly jobs: MemorySendJob[] = [];
  commits = 0;
  /** When set, the next commit fails with it and writes nothing (a Redis transaction aborted). */
  failNext: Error | undefined;

  constructor(
    private readonly idempotency: MemoryIdempotency,
    private readonly clock: Pick<Clock, 'now'> = STILL_CLOCK,
  ) {}

  commit(
    teamId: string,
    emails: AcceptedEmail[],
    completion: { token: unknown; status: number; body: string } | undefined,
  ): Promise<void> {
    return commitAcceptance(
      { teamId, emails, completion },
      {
        clock: this.clock,
        stage: async (team, staged) => {
          const failure = this.failNext;
          this.failNext = undefined;
          if (failure) throw failure;
          this.commits++;
          this.records.push(...staged.map((e) => ({ ...e, teamId: team })));
        },
        enqueue: async (_lane, jobs) => {
          for (const j of jobs) {
            if (isGroupSpec(j))
              for (const emailId of j.emailIds)
                this.jobs.push({ teamId: j.teamId, emailId, delayMs: 0, group: j.emailIds[0]! });
            else this.jobs.push({ teamId: j.teamId, emailId: j.emailId, delayMs: j.delayMs ?? 0 });
          }
        },
        clear: async (_team, _entries, done) => {
          if (done) this.idempotency.complete(done.token, done);
        },
      },
    );
  }
}

type Served = { ok: true; attachment: FetchedAttachment } | { ok: false; reason: string } | { ok: 'crash' };

export class MemoryAttachmentFetcher implements AttachmentFetcher {
  private readonly urls = new Map<string, Served>();
  readonly calls: { url: string; limits: AttachmentFetchLimits }[] = [];

  /** Serve `content` at `url` (with the media type and file name a server would reveal). */
  serve(url: string, content: string | Buffer, meta: { contentType?: string; filename?: string } = {}): this {
    this.urls.set(url, { ok: true, attachment: { content: Buffer.from(content), ...meta } });
    return this;
  }

  /** Refuse `url` as the real fetcher would (`invalid_attachment: <field>: <reason>`). */
  refuse(url: string, reason: string): this {
    this.urls.set(url, { ok: false, reason });
    return this;
  }

  /** Fail `url` with an internal error (not the client's fault). */
  crash(url: string): this {
    this.urls.set(url, { ok: 'crash' });
    return this;
  }

  async fetch(url: string, limits: AttachmentFetchLimits): Promise<FetchedAttachment> {
    this.calls.push({ url, limits });
    const served = this.urls.get(url) ?? { ok: false, reason: 'could not resolve the host (ENOTFOUND)' };
    if (served.ok === 'crash') throw new Error(`fetcher crashed on ${url}`);
    if (!served.ok) throw new PetrelError('invalid_attachment', `${limits.field}: ${served.reason}`);
    if (served.attachment.content.length > limits.maxBytes) {
      throw new PetrelError(
        'invalid_attachment',
        `${limits.field}: the content is larger than ${limits.maxBytes} bytes`,
      );
    }
    return served.attachment;
  }
}

export interface MemoryAcceptPorts extends AcceptPorts {
  idempotency: MemoryIdempotency;
  store: MemoryAcceptCommit;
  templates: MemoryTemplates;
  attachments: MemoryAttachmentFetcher;
  topics: MemoryTopics;
}

/**
 * Every port of acceptEmails in memory. `preparer` replaces the real stages (e.g. to pass
 * emails through untouched); `clock` stamps idempotency claims.
 */
export function memoryAcceptPorts(
  opts: { preparer?: Preparer; clock?: Pick<Clock, 'now'> } = {},
): MemoryAcceptPorts {
  const idempotency = new MemoryIdempotency(opts.clock);
  const store = new MemoryAcceptCommit(idempotency, opts.clock);
  const templates = new MemoryTemplates();
  const attachments = new MemoryAttachmentFetcher();
  const topics = new MemoryTopics();
  const preparer = opts.preparer ?? acceptPreparer({ templates, attachments, topics });
  return {
    topics,
    idempotency,
    store,
    templates,
    attachments,
    claim: (teamId, key, fp) => idempotency.claim(teamId, key, fp),
    lookup: (teamId, key, fp) => idempotency.lookup(teamId, key, fp),
    release: (token) => idempotency.release(token),
    fingerprint: (endpoint, body) => idempotency.fingerprint(endpoint, body),
    onIdempotency: (outcome) => idempotency.onIdempotency(outcome),
    prepare: (teamId, emails, endpoint) => preparer.prepare(teamId, emails, endpoint),
    commit: (teamId, emails, completion) => store.commit(teamId, emails, completion),
  };
}

/**
 * The ports of the accept-emails use-case: what it needs from the outside world, declared here so
 * the use-case imports no store, queue or network code. The Redis stores and the BullMQ queues
 * satisfy them in production (wired by the app); packages/testing has in-memory versions.
 */
import type { EmailContent, EmailEvent, ErrorName } from '@petrel/contracts';
import type { CompiledTemplate } from '../templates/parse-template.js';
import type { DeclaredVariable } from '../templates/render-template.js';

/** How the request named its emails: `single` (POST /emails) or `batch` (`emails[i].` prefixes). */
export type Endpoint = 'batch' | 'single';

/** The published version an accepted email was checked against; the worker renders exactly it. */
export interface TemplatePin {
  id: string;
  versionId: string;
}

// ---------------------------------------------------------------------------------------------
// Idempotency

export type ClaimResult =
  | { outcome: 'proceed'; token: unknown; startedMs: number }
  | { outcome: 'mismatch' }
  | { outcome: 'in_flight' }
  | { outcome: 'replay'; status: number; body: string };

/** A response stored under an Idempotency-Key. */
export interface StoredResponse {
  status: number;
  body: string;
}

/** The idempotency store (Idempotency-Key: claim, peek, release; completion goes with the commit). */
export interface IdempotencyPort {
  /** Claim `key` for this request, or learn that it is taken (other body, in flight, completed). */
  claim(teamId: string, key: string, fingerprint: string): Promise<ClaimResult>;
  /**
   * Read-only peek (never claims): the response stored for `key` when an earlier request with
   * this `fingerprint` completed, else undefined (unknown key, other body, still in flight).
   */
  lookup(teamId: string, key: string, fingerprint: string): Promise<StoredResponse | undefined>;
  /** Free a claim whose request was refused before anything was written. */
  release(token: unknown): Promise<void>;
  /** The request's identity under a key: same endpoint and same body give the same fingerprint. */
  fingerprint(endpoint: Endpoint, body: unknown): string;
  /** Observes every claim outcome (metrics). */
  onIdempotency?(outcome: ClaimResult['outcome']): void;
}

// ---------------------------------------------------------------------------------------------
// Commit

export interface AcceptedEmail {
  index: number;
  id: string;
  content: EmailContent;
  status: 'queued' | 'scheduled';
  /** Delay until a scheduled email is due. */
  delayMs: number;
  messageId: string;
  template?: TemplatePin;
  event: EmailEvent;
}

/**
 * Records + jobs + idempotency completion. When `commit` resolves, every email has its record and
 * its send job, and the response is stored under the key. When it rejects (or the process dies
 * inside it), either nothing was written or the records were, with what finishes them: their jobs
 * follow without another request (the production adapter's outbox relay), and a retry under the
 * same key recomputes the same ids and completes the same request. The response is stored only
 * once the jobs exist, so a replayed response never names an email that will not be sent.
 */
export interface CommitPort {
  commit(
    teamId: string,
    emails: AcceptedEmail[],
    completion: { token: unknown; status: number; body: string } | undefined,
  ): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Preparation (the stages between validation and commit)

/** An email refused by a stage: the wire error name and a message that names the field. */
export interface AcceptError {
  index: number;
  message: string;
  /** Defaults to `validation_error`. */
  name?: ErrorName;
  /** The HTTP status when not the name's own (a `from` domain not verified: 403 validation_error). */
  status?: number;
}

export interface PreparedEmail {
  index: number;
  email: EmailContent;
  template?: TemplatePin;
}

export interface PrepareResult {
  /** Emails after template resolution etc., in request order. */
  emails: PreparedEmail[];
  errors: AcceptError[];
}

/** What the credential of the request restricts (an API key with `domain_id`). */
export interface SenderScope {
  /** The only domain the key may send from. */
  domainId?: string;
}

/** Runs the preparation stages over the valid emails of one request (see `prepareWith`). */
export interface Preparer {
  prepare(
    teamId: string,
    emails: { index: number; email: EmailContent }[],
    endpoint: Endpoint,
    scope?: SenderScope,
  ): Promise<PrepareResult>;
}

// ---------------------------------------------------------------------------------------------
// Template lookup (TemplatesStore.getPublished implements it)

/** The parts of a published template version that acceptance checks an email against. */
export interface PublishedTemplateVersion {
  id: string;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  variables: DeclaredVariable[];
}

export type PublishedTemplate =
  | {
      ok: true;
      template: { id: string };
      compiled: {
        version: PublishedTemplateVersion;
        subject: CompiledTemplate | undefined;
        html: CompiledTemplate;
        text: CompiledTemplate | undefined;
      };
    }
  | { ok: false; reason: 'not_found' | 'not_published' };

export interface TemplateLookup {
  /** The published version of a template named by id or alias. */
  getPublished(teamId: string, idOrAlias: string): Promise<PublishedTemplate>;
}

// ---------------------------------------------------------------------------------------------
// Remote attachments (packages/mailer's fetcher implements it)

export interface FetchedAttachment {
  content: Buffer;
  /** The response's Content-Type, when it is a well-formed media type. */
  contentType?: string;
  /** A file name taken from the URL, when it makes a usable one. */
  filename?: string;
}

export interface AttachmentFetchLimits {
  /** Refuse a body larger than this many bytes. */
  maxBytes: number;
  /** One deadline for the whole fetch. */
  timeoutMs: number;
  /** The field named in error messages, e.g. `attachments[0].path`. */
  field: string;
}

export interface AttachmentFetcher {
  /**
   * The content behind an http(s) URL. Rejects with a PetrelError `invalid_attachment` whose
   * message starts with `<field>: ` when the URL is refused or the fetch fails; any other
   * rejection is an internal error.
   */
  fetch(url: string, limits: AttachmentFetchLimits): Promise<FetchedAttachment>;
}

// ---------------------------------------------------------------------------------------------

/** Everything acceptEmails needs. `prepare` is `prepareWith(acceptStages(...))` in production. */
export interface AcceptPorts extends IdempotencyPort, CommitPort, Preparer {}

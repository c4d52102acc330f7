/**
 * Acceptance stages: the asynchronous, side-effect-free steps every valid email goes through
 * before it is committed (template resolution, remote attachments, the topics guard). A stage
 * either returns the email (possibly rewritten, possibly pinned to a template version) or refuses
 * it with a message naming the field; it never writes anything, so a refusal leaves no trace.
 *
 * Every producer runs the same stages: HTTP today, SMTP submission and automation steps later.
 */
import type { EmailContent, ErrorName } from '@petrel/contracts';
import { PetrelError, formatIssuePath } from '@petrel/contracts';
import type { AcceptError, Endpoint, PrepareResult, Preparer, SenderScope, TemplatePin } from '../ports.js';

/** What a stage knows about the email's place in the request. */
export interface StageContext {
  teamId: string;
  /** Index of the email in the request (0 for a single send). */
  index: number;
  /** In a batch, messages name the email: `emails[i].` */
  batch: boolean;
  /** The only domain the request's API key may send from (a key with `domain_id`). */
  keyDomainId?: string;
}

export type StageResult =
  | { email: EmailContent; template?: TemplatePin }
  | { refused: { message: string; name?: ErrorName; status?: number } };

export type AcceptStage = (email: EmailContent, ctx: StageContext) => Promise<StageResult>;

/** The prefix that names an email's fields in messages: `emails[3].` in a batch, none otherwise. */
export const fieldPrefix = (ctx: Pick<StageContext, 'index' | 'batch'>): string =>
  ctx.batch ? `${formatIssuePath(['emails', ctx.index])}.` : '';

/** A stage's refusal of one field (`status` when not the name's own). */
export const refuse = (message: string, name?: ErrorName, status?: number): StageResult => ({
  refused: { message, ...(name ? { name } : {}), ...(status !== undefined ? { status } : {}) },
});

/**
 * A refusal from a port that reports with PetrelError (the attachment fetcher): its name and
 * message; any other error is not the client's fault and propagates.
 */
export function refusalFrom(err: unknown): StageResult {
  if (err instanceof PetrelError && err.statusCode < 500) return refuse(err.message, err.errorName);
  throw err;
}

/**
 * Runs `stages` in order over each email (the emails of one request concurrently). An email
 * refused by a stage goes to `errors` and skips the later stages.
 */
export function prepareWith(stages: readonly AcceptStage[]): Preparer {
  return {
    async prepare(teamId, emails, endpoint: Endpoint, scope?: SenderScope): Promise<PrepareResult> {
      const batch = endpoint === 'batch';
      const keyDomainId = scope?.domainId;
      const out: PrepareResult = { emails: [], errors: [] };
      await Promise.all(
        emails.map(async ({ index, email }) => {
          let current = email;
          let template: TemplatePin | undefined;
          for (const stage of stages) {
            const r = await stage(current, { teamId, index, batch, ...(keyDomainId && { keyDomainId }) });
            if ('refused' in r) {
              const error: AcceptError = { index, ...r.refused };
              out.errors.push(error);
              return;
            }
            current = r.email;
            template = r.template ?? template;
          }
          out.emails.push({ index, email: current, ...(template ? { template } : {}) });
        }),
      );
      out.emails.sort((a, b) => a.index - b.index);
      out.errors.sort((a, b) => a.index - b.index);
      return out;
    },
  };
}

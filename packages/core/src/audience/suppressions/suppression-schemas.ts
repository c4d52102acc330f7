/**
 * Wire schemas of the suppression list's writes (Resend's suppressions API: POST /suppressions,
 * POST /suppressions/batch/add, POST /suppressions/batch/remove). An entry is one mailbox, so an
 * address is a bare `local@domain` (a display name names no mailbox) validated by the same
 * parser as a send's recipients. Issues are rendered by the one formatter of contracts.
 */
import { AUDIENCE_LIMITS } from '@petrel/contracts';
import { z } from 'zod';
import { parseAddress, trimBlanks } from '../../kernel/mailbox.js';
import { addIssue, requiredOr } from '../../validation/checks.js';
import { MSG } from '../../validation/rules.js';

export const SUPPRESSION_RULES = {
  displayName: 'must be a bare email address (local@domain), without a display name',
  emails: `must be an array of 1 to ${AUDIENCE_LIMITS.suppressionBatch} email addresses`,
  ids: `must be an array of 1 to ${AUDIENCE_LIMITS.suppressionBatch} suppression ids`,
  oneOf: 'give either emails or ids, not both',
  eitherRequired: 'emails or ids is required',
} as const;

/** One bare address, less surrounding blanks. */
const bareEmail = (typeError: string | ((issue: { input?: unknown }) => string)) =>
  z.string({ error: typeError }).check((payload) => {
    const parsed = parseAddress(payload.value);
    if (!parsed.ok) addIssue(payload, [], MSG.badAddress(parsed.reason));
    else if (parsed.name !== undefined) addIssue(payload, [], SUPPRESSION_RULES.displayName);
    else payload.value = trimBlanks(payload.value);
  });

const list = <T extends z.ZodType>(item: T, rule: string) =>
  z.array(item, { error: rule }).min(1, rule).max(AUDIENCE_LIMITS.suppressionBatch, rule);

const idString = z.string(MSG.string).min(1, MSG.nonEmpty);

/** POST /suppressions. */
export const addSuppressionSchema = z.object({ email: bareEmail(requiredOr(MSG.string)) });
export type AddSuppressionInput = z.infer<typeof addSuppressionSchema>;

/** POST /suppressions/batch/add. */
export const addSuppressionsSchema = z.object({
  emails: list(bareEmail(MSG.string), SUPPRESSION_RULES.emails),
});
export type AddSuppressionsInput = z.infer<typeof addSuppressionsSchema>;

/** POST /suppressions/batch/remove: `{ emails }` or `{ ids }` (the SDK's two shapes), not both. */
export const removeSuppressionsSchema = z
  .object({
    emails: list(bareEmail(MSG.string), SUPPRESSION_RULES.emails).optional(),
    ids: list(idString, SUPPRESSION_RULES.ids).optional(),
  })
  .check((payload) => {
    const { emails, ids } = payload.value;
    if (emails !== undefined && ids !== undefined) addIssue(payload, [], SUPPRESSION_RULES.oneOf);
    else if (emails === undefined && ids === undefined)
      addIssue(payload, [], SUPPRESSION_RULES.eitherRequired);
  });
export type RemoveSuppressionsInput = z.infer<typeof removeSuppressionsSchema>;

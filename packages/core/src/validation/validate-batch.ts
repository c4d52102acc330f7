/**
 * Validation of a `POST /emails/batch` body: a JSON array of 1..100
 * emails, each validated on its own by `validateEmail` in batch context.
 */
import type { BatchItemError, BatchValidationMode, EmailContent } from '@petrel/contracts';
import { LIMITS, formatIssue, validationError } from '@petrel/contracts';
import { z } from 'zod';
import { MSG } from './rules.js';
import { validateEmail } from './validate-email.js';

/** The body as a whole: its elements are validated one by one, each with its own result. */
const batchShape = z
  .array(z.unknown(), MSG.batchShape)
  .min(1, MSG.batchShape)
  .max(LIMITS.emailsPerBatch, MSG.batchTooLarge);

export interface ValidateBatchOptions {
  /** From the `x-batch-validation` header; strict when absent. */
  mode: BatchValidationMode;
  /** The request's instant (epoch ms). */
  nowMs: number;
}

export interface ValidatedBatch {
  /** Valid emails with their position in the request, in request order. */
  accepted: { index: number; email: EmailContent }[];
  /** Refused emails (permissive mode only; strict mode throws instead). */
  errors: BatchItemError[];
}

/**
 * Validates a batch body. Throws `PetrelError('validation_error')` when the request as a whole is
 * unacceptable: the body is not an array of 1..100 items, or (strict mode) any one email is
 * invalid — the batch is atomic then and the message is that email's first error
 * (`emails[3].to: at most 50 recipients`). In permissive mode it never throws for an element and
 * reports each refused one in `errors`.
 */
export function validateBatch(body: unknown, opts: ValidateBatchOptions): ValidatedBatch {
  const shape = batchShape.safeParse(body);
  if (!shape.success) throw validationError(formatIssue(shape.error.issues[0]!));
  const emails = shape.data;
  const accepted: ValidatedBatch['accepted'] = [];
  const errors: BatchItemError[] = [];
  for (let index = 0; index < emails.length; index++) {
    const result = validateEmail(emails[index], { nowMs: opts.nowMs, context: 'batch', index });
    if (result.ok) {
      accepted.push({ index, email: result.email });
    } else if (opts.mode === 'strict') {
      throw validationError(result.message);
    } else {
      errors.push({ index, message: result.message });
    }
  }
  return { accepted, errors };
}

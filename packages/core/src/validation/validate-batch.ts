/**
 * Validation of a `POST /emails/batch` body (spec 4.1, reference C.3): a JSON array of 1..100
 * emails, each validated on its own by `validateEmail` in batch context.
 */
import type { BatchItemError, BatchValidationMode, EmailContent } from '@petrel/contracts';
import { LIMITS, PetrelError } from '@petrel/contracts';
import { MSG } from './rules.js';
import { validateEmail } from './validate-email.js';

export interface ValidateBatchOptions {
  /** From the `x-batch-validation` header; strict when absent. */
  mode: BatchValidationMode;
  now: Date;
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
  if (!Array.isArray(body) || body.length === 0) {
    throw new PetrelError('validation_error', `body: ${MSG.batchShape}`);
  }
  if (body.length > LIMITS.emailsPerBatch) {
    throw new PetrelError('validation_error', `body: ${MSG.batchTooLarge}`);
  }
  const accepted: ValidatedBatch['accepted'] = [];
  const errors: BatchItemError[] = [];
  for (let index = 0; index < body.length; index++) {
    const result = validateEmail(body[index], { now: opts.now, context: 'batch', index });
    if (result.ok) {
      accepted.push({ index, email: result.email });
    } else if (opts.mode === 'strict') {
      throw new PetrelError('validation_error', result.message);
    } else {
      errors.push({ index, message: result.message });
    }
  }
  return { accepted, errors };
}

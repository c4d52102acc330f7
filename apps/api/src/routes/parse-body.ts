import type { z } from 'zod';
import { PetrelError, formatIssues } from '@petrel/contracts';

/** Parse a JSON body with a zod schema; the 422 message names each field and its rule. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const input = body ?? {};
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  throw new PetrelError('validation_error', formatIssues(res.error.issues, { input }));
}

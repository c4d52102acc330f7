import type { z } from 'zod';
import { PetrelError } from '@petrel/contracts';

/** Parse a JSON body with a zod schema; the 422 message names each field and its rule. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const res = schema.safeParse(body ?? {});
  if (res.success) return res.data;
  const msg = res.error.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path.length ? i.path.join('.') : 'body';
      if (i.code === 'unrecognized_keys') return `${path}: unknown field(s) ${i.keys.join(', ')}`;
      if (i.code === 'invalid_type' && /received undefined/.test(i.message)) return `${path}: is required`;
      return `${path}: ${i.message}`;
    })
    .join('; ');
  throw new PetrelError('validation_error', msg);
}

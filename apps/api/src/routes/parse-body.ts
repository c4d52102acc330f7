import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { PetrelError, formatIssues } from '@petrel/contracts';
import { teamOf } from './route-table.js';

/** Parse a JSON body with a zod schema; the 422 message names each field and its rule. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const input = body ?? {};
  const res = schema.safeParse(input);
  if (res.success) return res.data;
  throw new PetrelError('validation_error', formatIssues(res.error.issues, { input }));
}

/**
 * A POST handler that creates one of the team's resources: the body through `schema`, then
 * `create`; the answer is 201 with Resend's `{ object, id }`.
 */
export function createHandler<S extends z.ZodType>(
  schema: S,
  object: string,
  create: (args: { teamId: string; input: z.infer<S> }) => Promise<{ id: string }>,
): RequestHandler {
  return async (req, res) => {
    const input = parseBody(schema, req.body);
    const { id } = await create({ teamId: teamOf(res), input });
    res.status(201).json({ object, id });
  };
}

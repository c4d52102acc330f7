import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { PetrelError, formatIssues, notFound } from '@petrel/contracts';
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

/** What an action on one of the team's resources is given: the team and the request (its path). */
export type ResourceAction<T> = (teamId: string, req: Request) => Promise<T>;

/**
 * A GET handler for one of the team's resources: `read` finds it (null: a 404 naming `what`) and
 * the answer is `wire` of it.
 */
export function getHandler<T>(
  what: string,
  read: ResourceAction<T | null>,
  wire: (found: T) => object,
): RequestHandler {
  return async (req, res) => {
    const found = await read(teamOf(res), req);
    if (!found) throw notFound(what);
    res.json(wire(found));
  };
}

/**
 * A handler that changes one of the team's resources (update, cancel, publish…): `run` does it
 * (parsing the body when it takes one); the answer is Resend's `{ object, id }`.
 */
export function actionHandler(object: string, run: ResourceAction<{ id: string }>): RequestHandler {
  return async (req, res) => {
    const { id } = await run(teamOf(res), req);
    res.json({ object, id });
  };
}

/** A DELETE handler: `remove` deletes the resource; the answer is Resend's `{ object, id, deleted }`. */
export function deleteHandler(object: string, remove: ResourceAction<{ id: string }>): RequestHandler {
  return async (req, res) => {
    const { id } = await remove(teamOf(res), req);
    res.json({ object, id, deleted: true });
  };
}

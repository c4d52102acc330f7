/**
 * /events: define, read, list, re-type and delete named events, and send one for a contact
 * (Resend's events API). Thin: parse the body with the wire schema, call a use-case, map the
 * result to the Resend wire shape.
 *
 * The SDK URL-encodes the identifier (`encodeURIComponent`), an id or a name; Express decodes the
 * parameter. An event named `send` shares its path with POST /events/send, so that path also
 * serves GET, PATCH and DELETE for it.
 */
import type { Request, RequestHandler } from 'express';
import {
  createEventSchema,
  sendEventSchema,
  updateEventSchema,
  type CustomEventRecord,
} from '@petrel/contracts';
import {
  createEvent,
  deleteEvent,
  getEvent,
  listEvents,
  sendEvent,
  updateEvent,
  type SendEventPorts,
} from '@petrel/core';
import { actionHandler, createHandler, deleteHandler, parseBody } from './parse-body.js';
import { listHandler } from './pagination.js';
import type { RouteSpec } from './route-table.js';

/** The fixed path segment of POST /events/send, also a valid event name. */
const SEND_SEGMENT = 'send';

/** An event as GET /events lists it (the SDK's `Event`). */
function wireEvent(e: CustomEventRecord) {
  return { id: e.id, name: e.name, schema: e.schema, created_at: e.created_at, updated_at: e.updated_at };
}

/** The identifier of the path: `:idOrName`, or `send` on the fixed path. */
function identifier(req: Request): string {
  const value = req.params.idOrName;
  return typeof value === 'string' ? value : SEND_SEGMENT;
}

/**
 * The event routes (full access; the app's access check applies). `triggers` (in the ports) is
 * the automation engine's entry: required, so no wiring can drop the hand-over.
 */
export function eventsRoutes(ports: SendEventPorts): RouteSpec[] {
  const create = createHandler(createEventSchema, 'event', (args) => createEvent(args, ports));

  // Events always paginate (20 by default), as Resend's newer list endpoints do.
  const list = listHandler('event', (teamId, page) => listEvents({ teamId, page }, ports), wireEvent);

  const get: RequestHandler = async (req, res) => {
    const event = await getEvent({ teamId: res.locals.auth.teamId, idOrName: identifier(req) }, ports);
    res.json({ object: 'event', ...wireEvent(event) });
  };

  const update = actionHandler('event', (teamId, req) => {
    const { schema } = parseBody(updateEventSchema, req.body);
    return updateEvent({ teamId, idOrName: identifier(req), schema }, ports);
  });

  const remove = deleteHandler('event', (teamId, req) =>
    deleteEvent({ teamId, idOrName: identifier(req) }, ports),
  );

  const send: RequestHandler = async (req, res) => {
    const input = parseBody(sendEventSchema, req.body);
    const out = await sendEvent(
      {
        teamId: res.locals.auth.teamId,
        idempotencyKey: req.get('idempotency-key'),
        input,
        rawBody: req.body ?? {},
      },
      ports,
    );
    res.status(out.status).type('application/json').send(out.body);
  };

  return [
    { path: '/events', methods: { post: create, get: list } },
    { path: `/events/${SEND_SEGMENT}`, methods: { post: send, get, patch: update, delete: remove } },
    { path: '/events/:idOrName', methods: { get, patch: update, delete: remove } },
  ];
}

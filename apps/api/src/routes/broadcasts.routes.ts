/**
 * /broadcasts: create (optionally sending or scheduling at once), list, read, update (drafts),
 * delete, send, cancel, duplicate — Resend's broadcasts API
 * (https://resend.com/docs/api-reference/broadcasts). Thin: parse the body with the wire schema,
 * call a use-case (or a store read), map the result to the Resend wire shape.
 *
 * The list returns every broadcast when `limit` is omitted (Resend's older list endpoints), up
 * to UNPAGED_LIST_MAX. GET /broadcasts/:id adds one key beyond Resend's broadcast object,
 * `counts` ({ total, enqueued, skipped }: contacts the fan-out went through, emails queued,
 * contacts left out as unsubscribed, suppressed or not subscribed to the topic); clients that do
 * not know it are unaffected.
 *
 * A refused state change (an update or a send of a broadcast that is not a draft, a DELETE of one
 * that is sending or sent, …) is a 422 `validation_error` whose message names the status.
 */
import type { Request } from 'express';
import type { BroadcastRecord } from '@petrel/contracts';
import {
  cancelBroadcast,
  resumeBroadcast,
  createBroadcast,
  createBroadcastSchema,
  deleteBroadcast,
  duplicateBroadcast,
  sendBroadcast,
  sendBroadcastSchema,
  updateBroadcast,
  updateBroadcastSchema,
  type BroadcastPorts,
} from '@petrel/core';
import type { BroadcastsStore } from '@petrel/store';
import {
  actionHandler,
  createHandler,
  deleteHandler,
  getHandler,
  parseBody,
  type ResourceAction,
} from './parse-body.js';
import { UNPAGED_LIST_MAX, listHandler } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface BroadcastRouteDeps extends BroadcastPorts {
  broadcasts: BroadcastsStore;
}

/**
 * The name on the wire: a string, as Resend's API reference and the SDK's `Broadcast.name` type
 * it; an unnamed broadcast's is empty.
 */
const wireName = (b: BroadcastRecord): string => b.name ?? '';

/** A broadcast in GET /broadcasts. */
function broadcastListItem(b: BroadcastRecord) {
  return {
    id: b.id,
    name: wireName(b),
    audience_id: b.segment_id,
    segment_id: b.segment_id,
    status: b.status,
    created_at: b.created_at,
    scheduled_at: b.scheduled_at,
    sent_at: b.sent_at,
    topic_id: b.topic_id,
  };
}

/** GET /broadcasts/:id: Resend's broadcast object, plus `counts` (see the header). */
function broadcastWire(b: BroadcastRecord) {
  return {
    object: 'broadcast' as const,
    id: b.id,
    name: wireName(b),
    segment_id: b.segment_id,
    audience_id: b.segment_id,
    from: b.from,
    subject: b.subject,
    reply_to: b.reply_to,
    preview_text: b.preview_text,
    status: b.status,
    created_at: b.created_at,
    scheduled_at: b.scheduled_at,
    sent_at: b.sent_at,
    // Petrel extension: why the protection rule paused it (docs/operations.md)
    ...(b.paused_reason !== undefined && { paused_reason: b.paused_reason }),
    topic_id: b.topic_id,
    html: b.html,
    text: b.text,
    counts: b.counts,
  };
}

export function broadcastsRoutes(deps: BroadcastRouteDeps): RouteSpec[] {
  const id = (req: Request): string => pathParam(req, 'id');
  /** An action on one broadcast answering `{ object, id }`. */
  const action = (run: ResourceAction<{ id: string }>) => actionHandler('broadcast', run);
  const create = createHandler(createBroadcastSchema, 'broadcast', (args) => createBroadcast(args, deps));

  const list = listHandler(
    'broadcast',
    (t, p) => deps.broadcasts.listSummaries(t, p),
    broadcastListItem,
    UNPAGED_LIST_MAX,
  );

  const get = getHandler('Broadcast', (teamId, req) => deps.broadcasts.get(teamId, id(req)), broadcastWire);

  const remove = deleteHandler('broadcast', (teamId, req) => deleteBroadcast({ teamId, id: id(req) }, deps));

  const update = action((teamId, req) =>
    updateBroadcast({ teamId, id: id(req), input: parseBody(updateBroadcastSchema, req.body) }, deps),
  );
  const send = action((teamId, req) =>
    sendBroadcast({ teamId, id: id(req), input: parseBody(sendBroadcastSchema, req.body) }, deps),
  );
  const cancel = action((teamId, req) => cancelBroadcast({ teamId, id: id(req) }, deps));
  // Petrel extension: a broadcast the protection rule paused goes on (docs/operations.md)
  const resume = action((teamId, req) => resumeBroadcast({ teamId, id: id(req) }, deps));
  const duplicate = action((teamId, req) => duplicateBroadcast({ teamId, id: id(req) }, deps));

  return [
    { path: '/broadcasts', methods: { post: create, get: list } },
    { path: '/broadcasts/:id', methods: { get, patch: update, delete: remove } },
    { path: '/broadcasts/:id/send', methods: { post: send } },
    { path: '/broadcasts/:id/cancel', methods: { post: cancel } },
    { path: '/broadcasts/:id/resume', methods: { post: resume } },
    { path: '/broadcasts/:id/duplicate', methods: { post: duplicate } },
  ];
}

/**
 * /webhooks: endpoints (create, list, read, update, delete, rotate the signing secret) and their
 * event logs (list, read, replay, attempts) — Resend's webhooks API as the SDK calls it. Thin:
 * parse with the wire schema, call a use-case or a store read, map to the wire shape.
 */
import type { Request, RequestHandler } from 'express';
import { LIMITS, notFound, validationError } from '@petrel/contracts';
import {
  createWebhook,
  createWebhookSchema,
  deleteWebhook,
  replayWebhookEvent,
  rotateWebhookSecret,
  updateWebhook,
  updateWebhookSchema,
  type WebhookAdminPorts,
  type WebhookDeliveryQueuePort,
  type WebhookEndpoint,
  type WebhookEventEntry,
} from '@petrel/core';
import type { WebhooksStore } from '@petrel/store';
import { parseBody } from './parse-body.js';
import { pageArray, parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface WebhookRoutesDeps extends Omit<WebhookAdminPorts, 'webhooks'> {
  store: WebhooksStore;
  queue: WebhookDeliveryQueuePort;
}

/** A webhook in a list (GET /webhooks): no secret, as Resend lists them. */
const listItem = (w: WebhookEndpoint) => ({
  id: w.id,
  endpoint: w.endpoint,
  created_at: w.created_at,
  status: w.status,
  events: w.events,
});

const eventItem = (e: WebhookEventEntry) => ({
  id: e.id,
  type: e.type,
  created_at: e.created_at,
  status: e.status,
});

export function webhooksRoutes(deps: WebhookRoutesDeps): RouteSpec[] {
  const { store } = deps;
  const ports: WebhookAdminPorts = { ...deps, webhooks: store };
  const team = (res: { locals: { auth: { teamId: string } } }): string => res.locals.auth.teamId;
  const webhookId = (req: Request): string => pathParam(req, 'id');
  const eventId = (req: Request): string => pathParam(req, 'eventId');

  /** The webhook of the path, or 404. */
  const existing = async (req: Request, teamId: string): Promise<WebhookEndpoint> => {
    const w = await store.get(teamId, webhookId(req));
    if (!w) throw notFound('Webhook');
    return w;
  };

  const create: RequestHandler = async (req, res) => {
    const input = parseBody(createWebhookSchema, req.body);
    const { id, signing_secret } = await createWebhook({ teamId: team(res), input }, ports);
    res.status(201).json({ object: 'webhook', id, signing_secret });
  };

  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const result = await store.list(team(res), page);
    if (!result) throw validationError(`${page.after ? 'after' : 'before'}: no such webhook`);
    res.json({ object: 'list', has_more: result.hasMore, data: result.items.map(listItem) });
  };

  const get: RequestHandler = async (req, res) => {
    const w = await existing(req, team(res));
    res.json({ object: 'webhook', ...listItem(w), signing_secret: w.secret });
  };

  const update: RequestHandler = async (req, res) => {
    const patch = parseBody(updateWebhookSchema, req.body);
    const { id } = await updateWebhook({ teamId: team(res), webhookId: webhookId(req), patch }, ports);
    res.json({ object: 'webhook', id });
  };

  const remove: RequestHandler = async (req, res) => {
    const { id } = await deleteWebhook({ teamId: team(res), webhookId: webhookId(req) }, ports);
    res.json({ object: 'webhook', id, deleted: true });
  };

  const rotate: RequestHandler = async (req, res) => {
    const { id, signing_secret } = await rotateWebhookSecret(
      { teamId: team(res), webhookId: webhookId(req) },
      ports,
    );
    res.json({ object: 'webhook', id, signing_secret });
  };

  const events: RequestHandler = async (req, res) => {
    const teamId = team(res);
    const w = await existing(req, teamId);
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const result = await store.listEvents(teamId, w.id, page);
    if (!result) throw validationError(`${page.after ? 'after' : 'before'}: no such event`);
    res.json({ object: 'list', has_more: result.hasMore, data: result.items.map(eventItem) });
  };

  const event: RequestHandler = async (req, res) => {
    const teamId = team(res);
    const w = await existing(req, teamId);
    const e = await store.getEvent(teamId, w.id, eventId(req));
    if (!e) throw notFound('Webhook event');
    res.json({
      object: 'webhook_event',
      ...eventItem(e),
      next_attempt_at: e.next_attempt_ms === null ? null : new Date(e.next_attempt_ms).toISOString(),
      payload: JSON.parse(e.payload) as unknown,
    });
  };

  const replay: RequestHandler = async (req, res) => {
    const { id } = await replayWebhookEvent(
      { teamId: team(res), webhookId: webhookId(req), eventId: eventId(req) },
      { webhooks: store, log: store, queue: deps.queue },
    );
    res.json({ object: 'webhook_event', id });
  };

  const attempts: RequestHandler = async (req, res) => {
    const teamId = team(res);
    const w = await existing(req, teamId);
    const e = await store.getEvent(teamId, w.id, eventId(req));
    if (!e) throw notFound('Webhook event');
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const all = (await store.attempts(teamId, w.id, e.id)).map((a) => ({
      id: a.id,
      http_status_code: a.http_status_code,
      response: a.response,
      sent_at: a.sent_at,
    }));
    const { data, has_more } = pageArray(all, page);
    res.json({ object: 'list', has_more, data });
  };

  return [
    { path: '/webhooks', methods: { post: create, get: list } },
    { path: '/webhooks/:id', methods: { get, patch: update, delete: remove } },
    { path: '/webhooks/:id/signing-secret/rotate', methods: { post: rotate } },
    { path: '/webhooks/:id/events', methods: { get: events } },
    { path: '/webhooks/:id/events/:eventId', methods: { get: event } },
    { path: '/webhooks/:id/events/:eventId/replay', methods: { post: replay } },
    { path: '/webhooks/:id/events/:eventId/attempts', methods: { get: attempts } },
  ];
}

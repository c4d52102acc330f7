/**
 * /webhooks: endpoints (create, list, read, update, delete, rotate the signing secret) and their
 * event logs (list, read, replay, attempts) — Resend's webhooks API as the SDK calls it. Thin:
 * parse with the wire schema, call a use-case or a store read, map to the wire shape.
 */
import type { Request, RequestHandler } from 'express';
import { LIMITS, notFound } from '@petrel/contracts';
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
} from '@petrel/core';
import type { WebhooksStore } from '@petrel/store';
import { actionHandler, deleteHandler, parseBody } from './parse-body.js';
import { listBody, listHandler, pageArray, parsePageQuery } from './pagination.js';
import { pathParam, teamOf, type RouteSpec } from './route-table.js';
import {
  webhookAttemptItem,
  webhookEventItem,
  webhookEventWire,
  webhookListItem,
  webhookWire,
} from './webhook-wire.js';

export interface WebhookRoutesDeps extends Omit<WebhookAdminPorts, 'webhooks'> {
  store: WebhooksStore;
  queue: WebhookDeliveryQueuePort;
}

export function webhooksRoutes(deps: WebhookRoutesDeps): RouteSpec[] {
  const { store } = deps;
  const ports: WebhookAdminPorts = { ...deps, webhooks: store };
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
    const { id, signing_secret } = await createWebhook({ teamId: teamOf(res), input }, ports);
    res.status(201).json({ object: 'webhook', id, signing_secret });
  };

  const list = listHandler('webhook', (t, p) => store.list(t, p), webhookListItem);

  const get: RequestHandler = async (req, res) => {
    const w = await existing(req, teamOf(res));
    res.json(webhookWire(w));
  };

  const update = actionHandler('webhook', (teamId, req) =>
    updateWebhook(
      { teamId, webhookId: webhookId(req), patch: parseBody(updateWebhookSchema, req.body) },
      ports,
    ),
  );

  const remove = deleteHandler('webhook', (teamId, req) =>
    deleteWebhook({ teamId, webhookId: webhookId(req) }, ports),
  );

  const rotate: RequestHandler = async (req, res) => {
    const { id, signing_secret } = await rotateWebhookSecret(
      { teamId: teamOf(res), webhookId: webhookId(req) },
      ports,
    );
    res.json({ object: 'webhook', id, signing_secret });
  };

  const events: RequestHandler = async (req, res) => {
    const teamId = teamOf(res);
    const w = await existing(req, teamId);
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    res.json(listBody(await store.listEvents(teamId, w.id, page), page, 'event', webhookEventItem));
  };

  const event: RequestHandler = async (req, res) => {
    const teamId = teamOf(res);
    const w = await existing(req, teamId);
    const e = await store.getEvent(teamId, w.id, eventId(req));
    if (!e) throw notFound('Webhook event');
    res.json(webhookEventWire(e));
  };

  const replay = actionHandler('webhook_event', (teamId, req) =>
    replayWebhookEvent(
      { teamId, webhookId: webhookId(req), eventId: eventId(req) },
      { webhooks: store, log: store, queue: deps.queue },
    ),
  );

  const attempts: RequestHandler = async (req, res) => {
    const teamId = teamOf(res);
    const w = await existing(req, teamId);
    const e = await store.getEvent(teamId, w.id, eventId(req));
    if (!e) throw notFound('Webhook event');
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const { data, has_more } = pageArray(
      (await store.attempts(teamId, w.id, e.id)).map(webhookAttemptItem),
      page,
    );
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

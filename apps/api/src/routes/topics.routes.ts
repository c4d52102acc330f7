/**
 * /topics: create, list, read, update, delete (Resend's topics API). Thin: parse the body with
 * the wire schema, call a use-case (or a store read), map the result to the Resend wire shape.
 * Topic ids travel raw in the path (the SDK interpolates them unencoded).
 */
import type { Request } from 'express';
import type { TopicRecord } from '@petrel/contracts';
import { createTopic, createTopicSchema, deleteTopic, updateTopic, updateTopicSchema } from '@petrel/core';
import type { TopicsStore } from '@petrel/store';
import { actionHandler, createHandler, deleteHandler, getHandler, parseBody } from './parse-body.js';
import { listHandler } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

/** A topic in a list (GET /topics): the record without `updated_at`, as Resend lists it. */
function listItem(t: TopicRecord) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    default_subscription: t.default_subscription,
    visibility: t.visibility,
    created_at: t.created_at,
  };
}

/** The topic routes (full access; the app's access check applies). */
export function topicsRoutes(store: TopicsStore): RouteSpec[] {
  const ports = { topics: store };
  const topicId = (req: Request): string => pathParam(req, 'id');

  const create = createHandler(createTopicSchema, 'topic', (args) => createTopic(args, ports));

  // Topics always paginate (20 by default); the SDK sends no query, so it reads the first page.
  const list = listHandler('topic', (t, p) => store.list(t, p), listItem);

  const get = getHandler(
    'Topic',
    (teamId, req) => store.get(teamId, topicId(req)),
    (topic) => ({ object: 'topic', ...listItem(topic), updated_at: topic.updated_at }),
  );

  const update = actionHandler('topic', (teamId, req) =>
    updateTopic({ teamId, topicId: topicId(req), patch: parseBody(updateTopicSchema, req.body) }, ports),
  );

  const remove = deleteHandler('topic', (teamId, req) =>
    deleteTopic({ teamId, topicId: topicId(req) }, ports),
  );

  return [
    { path: '/topics', methods: { post: create, get: list } },
    { path: '/topics/:id', methods: { get, patch: update, delete: remove } },
  ];
}

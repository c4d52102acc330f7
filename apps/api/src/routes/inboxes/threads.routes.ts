/**
 * An inbox's threads (the SDK's `inboxes.threads.*`): list and search (filters read by core's
 * thread-query.ts), get, move or mark, delete (to the trash, then for good), their labels, and
 * their messages with bodies read from the emails they are.
 */
import type { Request, RequestHandler } from 'express';
import {
  addThreadLabelsSchema,
  changeThreadLabels,
  findThread,
  findThreadMessage,
  labelMap,
  messageObject,
  removeThread,
  setThreadLabelsSchema,
  threadFilters,
  threadListItem,
  threadSearchTerms,
  threadSummary,
  updateThread,
  updateThreadSchema,
  type QueryValue,
  type ThreadQuery,
} from '@petrel/core';
import { parseBody } from '../parse-body.js';
import { listBody, parsePageQuery, queryParam } from '../pagination.js';
import { pathParam, type RouteSpec } from '../route-table.js';
import { teamOf as team, type InboxesContext } from './context.js';

const values =
  (req: Request): QueryValue =>
  (name) =>
    queryParam(req, name);

/** The page, then the filters: a bad `limit` is named before a bad `folders`. */
const threadQuery = (req: Request): ThreadQuery => ({
  ...parsePageQuery(req),
  ...threadFilters(values(req)),
});

export function threadsRoutes({ store, ports, content, inboxOf }: InboxesContext): RouteSpec[] {
  const labelsOf = (res: Parameters<RequestHandler>[1], inboxId: string) =>
    labelMap(store, team(res), inboxId);

  const list: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const q = threadQuery(req);
    const found = await store.threads(team(res), inbox.id, q);
    const labels = await labelsOf(res, inbox.id);
    res.json(listBody(found, q, 'item', (t) => threadListItem(t, labels)));
  };
  const search: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const q = threadQuery(req);
    const found = await store.search(team(res), inbox.id, { ...q, ...threadSearchTerms(values(req)) });
    const labels = await labelsOf(res, inbox.id);
    res.json(
      listBody(found, q, 'item', (t) => ({
        ...threadListItem(t, labels),
        matched_email_id: t.matched_email_id,
      })),
    );
  };
  const get: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const thread = await findThread(store, team(res), inbox.id, pathParam(req, 'thread'));
    res.json(threadSummary(thread, await labelsOf(res, inbox.id)));
  };
  const patch: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const input = parseBody(updateThreadSchema, req.body);
    const change = {
      ...(input.folder != null && { folder: input.folder }),
      ...(input.read != null && { read: input.read }),
    };
    const threadId = pathParam(req, 'thread');
    const thread = await updateThread({ teamId: team(res), inbox, threadId, change, source: 'api' }, ports);
    res.json(threadSummary(thread, await labelsOf(res, inbox.id)));
  };
  const remove: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const done = await removeThread({ teamId: team(res), inbox, threadId: pathParam(req, 'thread') }, ports);
    res.json({ object: 'inbox_thread', ...done });
  };

  // ---- thread labels
  const threadLabels =
    (op: 'add' | 'set' | 'remove'): RequestHandler =>
    async (req, res) => {
      const inbox = await inboxOf(req, res);
      const labelIds =
        op === 'remove'
          ? [pathParam(req, 'label')]
          : parseBody(op === 'add' ? addThreadLabelsSchema : setThreadLabelsSchema, req.body).labels;
      const { thread, labels } = await changeThreadLabels(
        { teamId: team(res), inbox, threadId: pathParam(req, 'thread'), op, labelIds, source: 'api' },
        ports,
      );
      res.json({ object: 'list', data: threadSummary(thread, labels).labels });
    };

  // ---- a thread's messages
  const listMessages: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const thread = await findThread(store, team(res), inbox.id, pathParam(req, 'thread'));
    const page = parsePageQuery(req);
    const body = listBody(await store.messages(team(res), inbox.id, thread.id, page), page, 'item');
    const data = await Promise.all(
      body.data.map(async (m) => messageObject(m, await content.bodies(team(res), m))),
    );
    res.json({ ...body, data });
  };
  const getMessage: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const [threadId, emailId] = [pathParam(req, 'thread'), pathParam(req, 'email')];
    const m = await findThreadMessage(store, team(res), inbox.id, threadId, emailId);
    res.json(messageObject(m, await content.bodies(team(res), m)));
  };

  const thread = '/inboxes/:inbox/threads/:thread';
  return [
    { path: '/inboxes/:inbox/threads', methods: { get: list } },
    { path: '/inboxes/:inbox/threads/search', methods: { get: search } },
    { path: thread, methods: { get, patch, delete: remove } },
    { path: `${thread}/labels`, methods: { post: threadLabels('add'), put: threadLabels('set') } },
    { path: `${thread}/labels/:label`, methods: { delete: threadLabels('remove') } },
    { path: `${thread}/emails`, methods: { get: listMessages } },
    { path: `${thread}/emails/:email`, methods: { get: getMessage } },
  ];
}

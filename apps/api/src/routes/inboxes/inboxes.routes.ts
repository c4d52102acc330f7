/**
 * /inboxes (the SDK's `resend.inboxes.*`): inboxes, their agent settings and labels here; threads,
 * thread labels and thread messages in threads.routes.ts. Thin: parse with core's schemas, call a
 * use-case or a store read, answer the SDK's shapes (core's inboxes/wire.ts). Anything of another
 * team or inbox is 404.
 */
import type { RequestHandler } from 'express';
import {
  agentObject,
  createInbox,
  createInboxSchema,
  createLabel,
  createLabelSchema,
  idKey,
  inboxListItem,
  inboxObject,
  labelObject,
  removeInbox,
  removeLabel,
  updateAgentSchema,
  updateAgentSettings,
  updateInbox,
  updateInboxSchema,
  updateLabel,
  updateLabelSchema,
} from '@petrel/core';
import { parseBody } from '../parse-body.js';
import { listBody, parsePageQuery } from '../pagination.js';
import { pathParam, type RouteSpec } from '../route-table.js';
import { inboxesContext, teamOf as team, type InboxesDeps } from './context.js';
import { threadsRoutes } from './threads.routes.js';

export type { InboxesDeps } from './context.js';

/** The header of `GET /inboxes/:x/agent`: `on` when a model endpoint runs the agents, else `off`. */
const AGENT_RUNNER_HEADER = 'Petrel-Agent-Runner';

export function inboxesRoutes(deps: InboxesDeps): RouteSpec[] {
  const ctx = inboxesContext(deps);
  const { store, ports, inboxOf } = ctx;

  // ---- inboxes
  const create: RequestHandler = async (req, res) => {
    const input = parseBody(createInboxSchema, req.body);
    const inbox = await createInbox({ teamId: team(res), input }, ports);
    res.status(201).json({ object: 'inbox', id: inbox.id });
  };
  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req);
    const body = listBody(await store.list(team(res), page), page, 'item');
    const data = await Promise.all(
      body.data.map(async (i) => inboxListItem(i, await store.counts(team(res), i.id))),
    );
    res.json({ ...body, data });
  };
  const get: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    res.json(inboxObject(inbox, await store.counts(team(res), inbox.id)));
  };
  const update: RequestHandler = async (req, res) => {
    await inboxOf(req, res); // another team's inbox is 404 whatever the body
    const input = parseBody(updateInboxSchema, req.body);
    const inbox = await updateInbox({ teamId: team(res), idOrEmail: pathParam(req, 'inbox'), input }, ports);
    res.json({ object: 'inbox', id: inbox.id });
  };
  const remove: RequestHandler = async (req, res) => {
    const inbox = await removeInbox({ teamId: team(res), idOrEmail: pathParam(req, 'inbox') }, ports);
    res.json({ object: 'inbox', id: inbox.id, deleted: true });
  };

  // ---- agent settings (stored and validated; see the docs for what runs them)
  const getAgent: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    // the SDK's InboxAgentSettings has no field for it: whether anything runs the settings
    res.setHeader(AGENT_RUNNER_HEADER, deps.agentRunner ? 'on' : 'off');
    res.json(agentObject(inbox));
  };
  const updateAgent: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const input = parseBody(updateAgentSchema, req.body);
    const updated = await updateAgentSettings({ teamId: team(res), inbox, input }, ports);
    res.json({ object: 'inbox_agent', id: updated.id });
  };

  // ---- labels
  const listLabels: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    res.json({ object: 'list', data: (await store.labels(team(res), inbox.id)).map(labelObject) });
  };
  const addLabel: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const input = parseBody(createLabelSchema, req.body);
    const label = await createLabel({ teamId: team(res), inbox, input }, ports);
    res.status(201).json({ object: 'inbox_label', id: label.id });
  };
  const patchLabel: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const input = parseBody(updateLabelSchema, req.body);
    const labelId = pathParam(req, 'label');
    const label = await updateLabel({ teamId: team(res), inbox, labelId, input }, ports);
    res.json({ object: 'inbox_label', id: label.id });
  };
  const deleteLabel: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const labelId = idKey(pathParam(req, 'label'));
    await removeLabel({ teamId: team(res), inbox, labelId }, ports);
    res.json({ object: 'inbox_label', id: labelId, deleted: true });
  };

  const base = '/inboxes/:inbox';
  return [
    { path: '/inboxes', methods: { post: create, get: list } },
    { path: base, methods: { get, patch: update, delete: remove } },
    { path: `${base}/agent`, methods: { get: getAgent, patch: updateAgent } },
    { path: `${base}/labels`, methods: { get: listLabels, post: addLabel } },
    { path: `${base}/labels/:label`, methods: { patch: patchLabel, delete: deleteLabel } },
    ...threadsRoutes(ctx),
  ];
}

/**
 * /inboxes (the SDK's `resend.inboxes.*`): inboxes, their labels, threads, thread messages and
 * thread labels, and the agent settings. Thin: parse with core's schemas, call a use-case or a
 * store read, answer the SDK's shapes (core's inboxes/wire.ts). An inbox is named in the path by
 * id or by address (`InboxSelector`; the SDK percent-encodes it). Anything of another team or
 * inbox is 404.
 */
import type { Request, RequestHandler, Response } from 'express';
import {
  INBOX_LIMITS,
  INBOX_MESSAGE_FOLDERS,
  notFound,
  validationError,
  type InboxFolder,
  type InboxMessageRecord,
} from '@petrel/contracts';
import {
  addThreadLabelsSchema,
  agentObject,
  changeThreadLabels,
  createInbox,
  createInboxSchema,
  createLabel,
  createLabelSchema,
  findInbox,
  findThread,
  inboxListItem,
  inboxObject,
  labelMap,
  labelObject,
  mailboxKey,
  messageObject,
  newId,
  removeInbox,
  removeLabel,
  removeThread,
  routingDomain,
  searchWords,
  setThreadLabelsSchema,
  threadListItem,
  threadSummary,
  updateAgentSchema,
  updateInbox,
  updateInboxSchema,
  updateLabel,
  updateLabelSchema,
  updateThread,
  updateThreadSchema,
  INBOX_RULES,
  type InboxesPort,
  type ReceivingDomains,
  type ThreadQuery,
} from '@petrel/core';
import { inboxMessageContent, type DomainsStore, type EmailsStore, type InboundStore } from '@petrel/store';
import { parseBody } from './parse-body.js';
import { parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface InboxesDeps {
  /** The inboxes, their threads and labels (the runtime's store). */
  inboxes: InboxesPort;
  domains: Pick<DomainsStore, 'all'>;
  /** Where messages' bodies are read (a message's id is its received or sent email's). */
  inbound: Pick<InboundStore, 'get' | 'raw'>;
  emails: Pick<EmailsStore, 'get' | 'getForSend'>;
  /** INBOUND_DOMAINS: an entry without a team is the default team's. */
  inboundDomains: readonly { domain: string; teamId: string | null }[];
  defaultTeamId: string;
  /** Whether a model endpoint runs the agents (INBOX_AGENT_URL set): agent.get says so in a header. */
  agentRunner?: boolean;
}

/** A team's receiving domains: its verified domains with receiving on, and its INBOUND_DOMAINS. */
function receivingDomains(deps: InboxesDeps): ReceivingDomains {
  return {
    async of(teamId) {
      const configured = deps.inboundDomains
        .filter((d) => (d.teamId ?? deps.defaultTeamId) === teamId)
        .map((d) => ({ domain: routingDomain(d.domain), domainId: '' }));
      const own = (await deps.domains.all(teamId))
        .filter((d) => d.status === 'verified' && d.capabilities.receiving === 'enabled')
        .map((d) => ({ domain: d.name, domainId: d.id }));
      return [...own, ...configured];
    },
  };
}

/** The header of `GET /inboxes/:x/agent`: `on` when a model endpoint runs the agents, else `off`. */
const AGENT_RUNNER_HEADER = 'Petrel-Agent-Runner';

const query = (req: Request): Record<string, unknown> => req.query as Record<string, unknown>;

/** A query value given once as a string, or undefined. */
function one(req: Request, name: string): string | undefined {
  const v = query(req)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw validationError(`${name}: must be given once, as a string`);
  return v;
}

/** A comma-separated list (the SDK joins arrays with commas). */
function list(req: Request, name: string): string[] | undefined {
  const v = one(req, name);
  return v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

function bool(req: Request, name: string): boolean | undefined {
  const v = one(req, name);
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw validationError(`${name}: ${INBOX_RULES.boolean}`);
  return v === 'true';
}

function folders(req: Request): InboxFolder[] | undefined {
  const v = list(req, 'folders');
  if (v === undefined) return undefined;
  if (v.length === 0 || v.some((f) => !(INBOX_MESSAGE_FOLDERS as readonly string[]).includes(f)))
    throw validationError(`folders: ${INBOX_RULES.folders}`);
  return v as InboxFolder[];
}

function addresses(req: Request, name: string): string[] {
  const v = list(req, name) ?? [];
  if (v.length > INBOX_LIMITS.searchAddresses)
    throw validationError(`${name}: at most ${INBOX_LIMITS.searchAddresses} addresses`);
  return v.map(mailboxKey);
}

function date(req: Request, name: string): number | undefined {
  const v = one(req, name);
  if (v === undefined) return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw validationError(`${name}: must be an ISO 8601 date`);
  return ms;
}

function threadQuery(req: Request): ThreadQuery {
  const page = parsePageQuery(req);
  const f = folders(req);
  const labels = list(req, 'labels')?.map((l) => l.toLowerCase());
  const read = bool(req, 'read');
  return {
    ...page,
    ...(f && { folders: f }),
    ...(labels && { labels }),
    ...(read !== undefined && { read }),
  };
}

export function inboxesRoutes(deps: InboxesDeps): RouteSpec[] {
  const store = deps.inboxes;
  const ports = {
    inboxes: store,
    receiving: receivingDomains(deps),
    clock: Date,
    ids: { newId: () => newId() },
  };
  const content = inboxMessageContent(deps);
  const team = (res: Response): string => res.locals.auth.teamId;
  const inboxOf = (req: Request, res: Response) => findInbox(store, team(res), pathParam(req, 'inbox'));

  const noCursor = (which: 'after' | 'before' | undefined) => {
    throw validationError(`${which ?? 'after'}: no such item`);
  };

  // ---- inboxes
  const create: RequestHandler = async (req, res) => {
    const input = parseBody(createInboxSchema, req.body);
    const inbox = await createInbox({ teamId: team(res), input }, ports);
    res.status(201).json({ object: 'inbox', id: inbox.id });
  };
  const listInboxes: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req);
    const found = await store.list(team(res), page);
    if (!found) return noCursor(page.after ? 'after' : 'before');
    const data = await Promise.all(
      found.items.map(async (i) => inboxListItem(i, await store.counts(team(res), i.id))),
    );
    res.json({ object: 'list', has_more: found.hasMore, data });
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
    const updated = await store.update(
      team(res),
      inbox.id,
      {
        ...(input.instructions !== undefined && { agent_instructions: input.instructions }),
        ...(input.tone !== undefined && { agent_tone: input.tone }),
        ...(input.actions !== undefined && { agent_actions: [...new Set(input.actions)] }),
      },
      'api',
    );
    if (!updated) throw notFound('Inbox');
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
    const label = await updateLabel(
      { teamId: team(res), inbox, labelId: pathParam(req, 'label'), input },
      ports,
    );
    res.json({ object: 'inbox_label', id: label.id });
  };
  const deleteLabel: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const labelId = pathParam(req, 'label').toLowerCase();
    await removeLabel({ teamId: team(res), inbox, labelId }, ports);
    res.json({ object: 'inbox_label', id: labelId, deleted: true });
  };

  // ---- threads
  const listThreads: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const q = threadQuery(req);
    const found = await store.threads(team(res), inbox.id, q);
    if (!found) return noCursor(q.after ? 'after' : 'before');
    const labels = await labelMap(store, team(res), inbox.id);
    res.json({
      object: 'list',
      has_more: found.hasMore,
      data: found.items.map((t) => threadListItem(t, labels)),
    });
  };
  const search: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const q = threadQuery(req);
    const text = one(req, 'query') ?? '';
    if (text.length > INBOX_LIMITS.searchQueryChars)
      throw validationError(`query: at most ${INBOX_LIMITS.searchQueryChars} characters`);
    const startMs = date(req, 'start_date');
    const endMs = date(req, 'end_date');
    if (startMs !== undefined && endMs !== undefined && startMs > endMs)
      throw validationError('end_date: must not be before start_date');
    const hasAttachment = bool(req, 'has_attachment');
    const found = await store.search(team(res), inbox.id, {
      ...q,
      words: [...searchWords(text)],
      from: addresses(req, 'from'),
      to: addresses(req, 'to'),
      cc: addresses(req, 'cc'),
      bcc: addresses(req, 'bcc'),
      ...(hasAttachment !== undefined && { hasAttachment }),
      ...(startMs !== undefined && { startMs }),
      ...(endMs !== undefined && { endMs }),
    });
    if (!found) return noCursor(q.after ? 'after' : 'before');
    const labels = await labelMap(store, team(res), inbox.id);
    res.json({
      object: 'list',
      has_more: found.hasMore,
      data: found.items.map((t) => ({ ...threadListItem(t, labels), matched_email_id: t.matched_email_id })),
    });
  };
  const getThread: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const thread = await findThread(store, team(res), inbox.id, pathParam(req, 'thread'));
    res.json(threadSummary(thread, await labelMap(store, team(res), inbox.id)));
  };
  const patchThread: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const input = parseBody(updateThreadSchema, req.body);
    const thread = await updateThread(
      {
        teamId: team(res),
        inbox,
        threadId: pathParam(req, 'thread'),
        change: {
          ...(input.folder != null && { folder: input.folder }),
          ...(input.read != null && { read: input.read }),
        },
        source: 'api',
      },
      ports,
    );
    res.json(threadSummary(thread, await labelMap(store, team(res), inbox.id)));
  };
  const deleteThread: RequestHandler = async (req, res) => {
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
  const bodies = (teamId: string, m: InboxMessageRecord) => content.bodies(teamId, m);
  const listMessages: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const thread = await findThread(store, team(res), inbox.id, pathParam(req, 'thread'));
    const page = parsePageQuery(req);
    const found = await store.messages(team(res), inbox.id, thread.id, page);
    if (!found) return noCursor(page.after ? 'after' : 'before');
    const data = await Promise.all(
      found.items.map(async (m) => messageObject(m, await bodies(team(res), m))),
    );
    res.json({ object: 'list', has_more: found.hasMore, data });
  };
  const getMessage: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const thread = await findThread(store, team(res), inbox.id, pathParam(req, 'thread'));
    const m = await store.message(team(res), inbox.id, pathParam(req, 'email'));
    if (!m || m.thread_id !== thread.id) throw notFound('Email');
    res.json(messageObject(m, await bodies(team(res), m)));
  };
  const base = '/inboxes/:inbox';
  return [
    { path: '/inboxes', methods: { post: create, get: listInboxes } },
    { path: base, methods: { get, patch: update, delete: remove } },
    { path: `${base}/agent`, methods: { get: getAgent, patch: updateAgent } },
    { path: `${base}/labels`, methods: { get: listLabels, post: addLabel } },
    { path: `${base}/labels/:label`, methods: { patch: patchLabel, delete: deleteLabel } },
    { path: `${base}/threads`, methods: { get: listThreads } },
    { path: `${base}/threads/search`, methods: { get: search } },
    {
      path: `${base}/threads/:thread`,
      methods: { get: getThread, patch: patchThread, delete: deleteThread },
    },
    {
      path: `${base}/threads/:thread/labels`,
      methods: { post: threadLabels('add'), put: threadLabels('set') },
    },
    { path: `${base}/threads/:thread/labels/:label`, methods: { delete: threadLabels('remove') } },
    { path: `${base}/threads/:thread/emails`, methods: { get: listMessages } },
    { path: `${base}/threads/:thread/emails/:email`, methods: { get: getMessage } },
  ];
}

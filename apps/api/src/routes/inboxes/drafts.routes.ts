/**
 * Replies, forwards and drafts of an inbox (the SDK's `inboxes.threads.emails.reply/forward`
 * and `inboxes.drafts.*`). Thin: parse with core's schemas, call core's use-cases (replies.ts,
 * drafts.ts), answer the SDK's shapes. Sends go through the accept path POST /emails uses (the
 * same ports, so the same stages, idempotency and domain-scoped keys).
 */
import type { Request, RequestHandler, Response } from 'express';
import {
  createDraftOnce,
  createDraftSchema,
  draftListItem,
  draftObject,
  findDraft,
  forwardEmail,
  forwardSchema,
  newId,
  removeDraft,
  replySchema,
  replyToEmail,
  sendDraft,
  sendDraftSchema,
  updateDraft,
  updateDraftSchema,
  type AcceptPorts,
  type AttachmentFetcher,
  type EventIdempotencyPort,
  type InboxSendResult,
} from '@petrel/core';
import {
  inboxMessageContent,
  type EmailsStore,
  type InboundStore,
  type InboxDraftsStore,
  type InboxesStore,
} from '@petrel/store';
import { parseBody } from '../parse-body.js';
import { listBody, parsePageQuery } from '../pagination.js';
import { pathParam, type RouteSpec } from '../route-table.js';
import { inboxFinder, teamOf as team } from './context.js';

export interface InboxDraftsDeps {
  /** The inboxes and their drafts (the runtime's stores). */
  inboxes: InboxesStore;
  drafts: InboxDraftsStore;
  /** The accept path of POST /emails (stages, idempotency, commit). */
  accept: AcceptPorts;
  /** The Idempotency-Key store with completion (draft creates). */
  idempotency: EventIdempotencyPort;
  /** Received emails: an inbound message's bodies and raw copy (its files). */
  inbound: Pick<InboundStore, 'get' | 'raw'>;
  /** Sent emails: an outbound message's bodies and files. */
  emails: Pick<EmailsStore, 'get' | 'getForSend'>;
  /** Downloads a draft file given by `path`. */
  fetcher: AttachmentFetcher;
}

export function inboxDraftsRoutes(deps: InboxDraftsDeps): RouteSpec[] {
  const { inboxes, drafts } = deps;
  const ports = {
    inboxes,
    drafts,
    accept: deps.accept,
    idempotency: deps.idempotency,
    content: inboxMessageContent(deps),
    fetcher: deps.fetcher,
    clock: Date,
    ids: { newId: () => newId() },
  };
  const inboxOf = inboxFinder(inboxes);
  const common = (req: Request, res: Response) => ({
    teamId: team(res),
    idempotencyKey: req.get('idempotency-key'),
    // a sending key restricted to a domain sends from it only (the sending-domain stage)
    ...(res.locals.auth.domainId !== undefined && { scope: { domainId: res.locals.auth.domainId } }),
    source: 'api' as const,
  });
  const answer = (res: Response, r: { status: number; body: string }) =>
    res.status(r.status).type('application/json').send(r.body);
  /** The path's draft: its team, inbox (404 first) and id. */
  const draftOf = async (req: Request, res: Response) => ({
    teamId: team(res),
    inbox: await inboxOf(req, res),
    draftId: pathParam(req, 'draft'),
  });

  /** Reply or forward: the inbox, thread and email of the path, the body by its kind's schema. */
  const onEmail =
    (kind: 'reply' | 'forward'): RequestHandler =>
    async (req, res) => {
      const inbox = await inboxOf(req, res);
      const target = {
        ...common(req, res),
        inbox,
        threadId: pathParam(req, 'thread'),
        emailId: pathParam(req, 'email'),
      };
      const sent: InboxSendResult =
        kind === 'reply'
          ? await replyToEmail({ ...target, input: parseBody(replySchema, req.body) }, ports)
          : await forwardEmail({ ...target, input: parseBody(forwardSchema, req.body) }, ports);
      answer(res, sent);
    };

  const list: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const page = parsePageQuery(req);
    res.json(listBody(await drafts.drafts(team(res), inbox.id, page), page, 'item', draftListItem));
  };
  const create: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    const input = parseBody(createDraftSchema, req.body);
    const done = await createDraftOnce({ ...common(req, res), inbox, input, rawBody: req.body }, ports);
    answer(res, done);
  };
  const get: RequestHandler = async (req, res) => {
    const inbox = await inboxOf(req, res);
    res.json(draftObject(await findDraft(drafts, team(res), inbox.id, pathParam(req, 'draft'))));
  };
  const patch: RequestHandler = async (req, res) => {
    const target = await draftOf(req, res);
    const input = parseBody(updateDraftSchema, req.body);
    const d = await updateDraft({ ...target, input, source: 'api' }, ports);
    res.json({ object: 'inbox_draft', id: d.id });
  };
  const remove: RequestHandler = async (req, res) => {
    const d = await removeDraft({ ...(await draftOf(req, res)), source: 'api' }, ports);
    res.json({ object: 'inbox_draft', id: d.id, deleted: true });
  };
  const send: RequestHandler = async (req, res) => {
    const target = await draftOf(req, res);
    const input = parseBody(sendDraftSchema, req.body);
    answer(res, await sendDraft({ ...common(req, res), ...target, input }, ports));
  };

  const base = '/inboxes/:inbox';
  return [
    { path: `${base}/threads/:thread/emails/:email/reply`, methods: { post: onEmail('reply') } },
    { path: `${base}/threads/:thread/emails/:email/forward`, methods: { post: onEmail('forward') } },
    { path: `${base}/drafts`, methods: { get: list, post: create } },
    { path: `${base}/drafts/:draft`, methods: { get, patch, delete: remove } },
    { path: `${base}/drafts/:draft/send`, methods: { post: send } },
  ];
}

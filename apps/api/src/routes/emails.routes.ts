/**
 * /emails: send (single and batch), read, list, reschedule, cancel, delete (a Petrel extension).
 * Thin: parse the request, call one use-case or store read, map the result.
 */
import type { RequestHandler } from 'express';
import { notFound } from '@petrel/contracts';
import {
  acceptEmails,
  cancelEmail,
  deleteEmail,
  emailAsSent,
  emailSearchQueryTerms,
  recordedRecipientOutcomes,
  rescheduleEmail,
  type AcceptPorts,
  type BroadcastEmailReadPorts,
  type DeleteEmailPorts,
  type Endpoint,
} from '@petrel/core';
import type { EmailsStore } from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { allOf, metrics, zeroSeries } from '@petrel/observability';
import { requireFullAccess } from '../middleware/auth.js';
import { batchMode, emailToWire, rescheduleSchema, searchQuery } from './email-wire.js';
import { parseBody } from './parse-body.js';
import { listBody, parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface EmailsRouteDeps {
  emails: EmailsStore;
  queues: SendQueues;
  accept: AcceptPorts;
  /** What GET /emails/:id reads to render a broadcast's email as its recipient got it. */
  broadcastEmails: BroadcastEmailReadPorts;
}

/** The path each sending endpoint answers on. */
const SEND_PATHS: Record<Endpoint, string> = { single: '/emails', batch: '/emails/batch' };

export function emailsRoutes(deps: EmailsRouteDeps): RouteSpec[] {
  const scheduled: DeleteEmailPorts = { emails: deps.emails, jobs: deps.queues, clock: Date };
  // the sending series from start-up: accepted emails per endpoint, and the sends' request
  // durations at the status a successful send answers (200, as Resend's API)
  const endpoints = allOf<Endpoint>({ single: true, batch: true });
  zeroSeries(metrics.emailsAccepted(), { endpoint: endpoints });
  zeroSeries(metrics.httpDuration(), {
    method: ['POST'],
    route: endpoints.map((e) => SEND_PATHS[e]),
    status: ['200'],
  });

  const send =
    (endpoint: Endpoint): RequestHandler =>
    async (req, res) => {
      const result = await acceptEmails(
        {
          teamId: res.locals.auth.teamId,
          endpoint,
          body: req.body,
          mode: endpoint === 'batch' ? batchMode(req) : 'strict',
          idempotencyKey: req.get('idempotency-key'),
          clock: Date,
          // a sending key restricted to a domain sends from it only (the sending-domain stage)
          ...(res.locals.auth.domainId !== undefined && { scope: { domainId: res.locals.auth.domainId } }),
        },
        deps.accept,
      );
      if (result.accepted > 0) metrics.emailsAccepted().inc({ endpoint }, result.accepted);
      res.status(result.status).type('application/json').send(result.body);
    };

  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req);
    // Petrel extension (the dashboard's search): to, status, tag, subject, answered from indexes
    const terms = emailSearchQueryTerms(searchQuery(req));
    const result = await deps.emails.list(res.locals.auth.teamId, { ...page, terms });
    res.json(listBody(result, page, 'email', (r) => emailToWire(r, false)));
  };

  const get: RequestHandler = async (req, res) => {
    const { teamId } = res.locals.auth;
    const id = pathParam(req, 'id');
    const found = await deps.emails.getWithEvents(teamId, id);
    if (!found) throw notFound('Email');
    // a broadcast's email stores no body: rendered as sent, by the worker's own render
    const record = await emailAsSent(found.record, deps.broadcastEmails);
    // per-recipient outcomes are on the timeline (the email.delivered event), not the record
    res.json(emailToWire(record, true, recordedRecipientOutcomes(found.events)));
  };

  /**
   * The email's timeline, oldest first (a Petrel extension the dashboard shows; Resend's API has
   * only `last_event`): each event as the webhook payload carries it, without the team.
   */
  const events: RequestHandler = async (req, res) => {
    const found = await deps.emails.getWithEvents(res.locals.auth.teamId, pathParam(req, 'id'));
    if (!found) throw notFound('Email');
    res.json({
      object: 'list',
      has_more: false,
      data: found.events.map(({ id, type, created_at, data }) => ({ id, type, created_at, data })),
    });
  };

  const reschedule: RequestHandler = async (req, res) => {
    const body = parseBody(rescheduleSchema, req.body);
    const { id } = await rescheduleEmail(
      {
        teamId: res.locals.auth.teamId,
        emailId: pathParam(req, 'id'),
        scheduledAt: body.scheduled_at,
      },
      scheduled,
    );
    res.json({ object: 'email', id });
  };

  const cancel: RequestHandler = async (req, res) => {
    const { id } = await cancelEmail(
      { teamId: res.locals.auth.teamId, emailId: pathParam(req, 'id') },
      scheduled,
    );
    res.json({ object: 'email', id });
  };

  const remove: RequestHandler = async (req, res) => {
    const cmd = { teamId: res.locals.auth.teamId, emailId: pathParam(req, 'id') };
    res.json(await deleteEmail(cmd, scheduled));
  };

  return [
    { path: SEND_PATHS.single, methods: { post: send('single'), get: [requireFullAccess, list] } },
    { path: SEND_PATHS.batch, methods: { post: send('batch') } },
    {
      path: '/emails/:id',
      methods: {
        get: [requireFullAccess, get],
        patch: [requireFullAccess, reschedule],
        delete: [requireFullAccess, remove],
      },
    },
    { path: '/emails/:id/cancel', methods: { post: [requireFullAccess, cancel] } },
    { path: '/emails/:id/events', methods: { get: [requireFullAccess, events] } },
  ];
}

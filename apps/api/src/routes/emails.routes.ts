/**
 * /emails: send (single and batch), read, list, reschedule, cancel (reference B.1).
 * Thin: parse the request, call one use-case or store method, map the result.
 */
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { notFound, PetrelError, validationError } from '@petrel/contracts';
import { acceptEmails, newEmailId, parseScheduledAt, type AcceptPorts, type Endpoint } from '@petrel/core';
import type { EmailRecord, EmailsStore } from '@petrel/store';
import type { SendQueues } from '@petrel/queue';
import { metrics } from '@petrel/observability';
import { requireFullAccess } from '../middleware/auth.js';
import { parseBody } from './parse-body.js';
import { parsePageQuery } from './pagination.js';

export interface EmailsRouteDeps {
  emails: EmailsStore;
  queues: SendQueues;
  accept: AcceptPorts;
}

/** The wire form of an email (GET /emails/:id; `full` adds html, text, tags and object). */
export function emailToWire(r: EmailRecord, full: boolean): Record<string, unknown> {
  const c = r.content;
  const base: Record<string, unknown> = {
    id: r.id,
    to: c.to,
    from: c.from,
    created_at: r.createdAt,
    subject: c.subject ?? '',
    bcc: c.bcc.length ? c.bcc : null,
    cc: c.cc.length ? c.cc : null,
    reply_to: c.reply_to.length ? c.reply_to : null,
    last_event: r.status,
    scheduled_at: r.scheduledAt,
    message_id: r.messageId,
  };
  if (!full) return base;
  return {
    object: 'email',
    ...base,
    html: c.html ?? null,
    text: c.text ?? null,
    tags: c.tags,
    ...(c.topic_id ? { topic_id: c.topic_id } : {}),
    ...(r.template ? { template_id: r.template.id } : {}),
  };
}

function batchMode(req: Request): 'strict' | 'permissive' {
  const raw = req.get('x-batch-validation');
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'strict') return 'strict';
  if (raw.toLowerCase() === 'permissive') return 'permissive';
  throw validationError('x-batch-validation: must be strict or permissive', 400);
}

const rescheduleSchema = z.strictObject({ scheduled_at: z.string().min(1) });

export function emailsRoutes(router: Router, deps: EmailsRouteDeps): void {
  const send = (endpoint: Endpoint) => async (req: Request, res: Response) => {
    const result = await acceptEmails(
      {
        teamId: res.locals.auth.teamId,
        endpoint,
        body: req.body,
        mode: endpoint === 'batch' ? batchMode(req) : 'strict',
        idempotencyKey: req.get('idempotency-key'),
        now: new Date(),
      },
      deps.accept,
    );
    if (result.accepted > 0) metrics.emailsAccepted().inc({ endpoint }, result.accepted);
    res.status(result.status).type('application/json').send(result.body);
  };

  router.route('/emails/batch').post(send('batch'));

  router
    .route('/emails')
    .post(send('single'))
    .get(requireFullAccess, async (req, res) => {
      const page = parsePageQuery(req);
      const result = await deps.emails.list(res.locals.auth.teamId, page);
      if (!result) throw validationError(`${page.after ? 'after' : 'before'}: no such email`);
      res.json({
        object: 'list',
        has_more: result.hasMore,
        data: result.items.map((r) => emailToWire(r, false)),
      });
    });

  router
    .route('/emails/:id')
    .get(requireFullAccess, async (req, res) => {
      const rec = await deps.emails.get(res.locals.auth.teamId, req.params.id!);
      if (!rec) throw notFound('Email');
      res.json(emailToWire(rec, true));
    })
    .patch(requireFullAccess, async (req, res) => {
      const teamId = res.locals.auth.teamId;
      const body = parseBody(rescheduleSchema, req.body);
      const now = new Date();
      const when = parseScheduledAt(body.scheduled_at, now);
      if (!when.ok) throw validationError(`scheduled_at: ${when.message}`);
      const rec = await deps.emails.get(teamId, req.params.id!);
      if (!rec) throw notFound('Email');
      if (rec.status !== 'scheduled') {
        throw validationError(`Only scheduled emails can be rescheduled; this email is ${rec.status}`);
      }
      const moved = await deps.queues.reschedule(rec.lane, rec.id, Date.parse(when.iso) - now.getTime());
      if (!moved) throw validationError('This email is no longer scheduled');
      await deps.emails.setFields(teamId, rec.id, { scheduled_at: when.iso });
      await deps.emails.recordEvent(teamId, rec.id, 'scheduled', {
        id: newEmailId(),
        type: 'email.rescheduled',
        created_at: now.toISOString(),
        teamId,
        data: { email_id: rec.id, scheduled_at: when.iso },
      });
      res.json({ object: 'email', id: rec.id });
    });

  router.route('/emails/:id/cancel').post(requireFullAccess, async (_req, res) => {
    const teamId = res.locals.auth.teamId;
    const id = _req.params.id!;
    const rec = await deps.emails.get(teamId, id);
    if (!rec) throw notFound('Email');
    const now = new Date();
    const outcome = await deps.emails.cancelScheduled(teamId, id, {
      id: newEmailId(),
      type: 'email.canceled',
      created_at: now.toISOString(),
      teamId,
      data: { email_id: id },
    });
    if (outcome !== 'canceled') {
      throw new PetrelError(
        'validation_error',
        `Only scheduled emails can be canceled; this email is ${rec.status}`,
      );
    }
    // The record says canceled first, so a job that fires now does nothing; then drop the job.
    await deps.queues.remove(rec.lane, id).catch(() => false);
    res.json({ object: 'email', id });
  });
}

/**
 * The unsubscribe links of emails (core/audience/unsubscribe.ts), served WITHOUT an API key:
 * the signed token in the path is the credential. Mounted before authentication.
 *
 * - `POST /unsubscribe/:token` — RFC 8058 one-click: the mailbox provider POSTs
 *   `List-Unsubscribe=One-Click` (form-encoded); the recipient leaves at once. 200 with a short
 *   page, also for a repeat.
 * - `GET /unsubscribe/:token` — the preference page (topics with checkboxes, "unsubscribe from
 *   everything"); changes nothing.
 * - `POST /unsubscribe/:token/preferences` — the page's form.
 *
 * A tampered or expired token is a 4xx page that does not say which.
 */
import express, { type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { PetrelError } from '@petrel/contracts';
import {
  UNSUBSCRIBE_PATH,
  escapeHtml,
  oneClickUnsubscribe,
  readPreferences,
  savePreferences,
  type Preferences,
  type UnsubscribePorts,
} from '@petrel/core';
import { log } from '@petrel/observability';
import { pathParam, type RouteSpec } from './route-table.js';

/** Form bodies here are a few checkboxes: anything larger is not one. */
const FORM_LIMIT = '16kb';

function page(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .type('html')
    // the page holds a form posting to itself and nothing else: no scripts, no framing
    .setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    )
    .setHeader('Cache-Control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.4rem 0}small{color:#555}</style></head>` +
        `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    );
}

function preferencesPage(res: Response, token: string, prefs: Preferences, saved: boolean): void {
  const topics = prefs.topics
    .map(
      (t) =>
        `<label><input type="checkbox" name="topic" value="${escapeHtml(t.topic.id)}"${t.subscribed ? ' checked' : ''}> ${escapeHtml(t.topic.name)}` +
        (t.topic.description ? ` <small>${escapeHtml(t.topic.description)}</small>` : '') +
        '</label>',
    )
    .join('');
  page(
    res,
    200,
    'Email preferences',
    (saved ? '<p><strong>Your preferences are saved.</strong></p>' : '') +
      `<p>For ${escapeHtml(prefs.claims.recipient)}</p>` +
      `<form method="post" action="${escapeHtml(`${UNSUBSCRIBE_PATH}/${token}/preferences`)}">` +
      (topics ? `<fieldset><legend>Send me</legend>${topics}</fieldset>` : '') +
      `<label><input type="checkbox" name="unsubscribe_all" value="1"${prefs.unsubscribed ? ' checked' : ''}> Unsubscribe from everything</label>` +
      '<button type="submit">Save</button></form>',
  );
}

/** The `topic` fields of a submitted form: one string or several. */
function formList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function unsubscribeRoutes(ports: UnsubscribePorts): RouteSpec[] {
  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 1_000 });
  const token = (req: Parameters<RequestHandler>[0]) => pathParam(req, 'token');

  const oneClick: RequestHandler = async (req, res) => {
    const claims = await oneClickUnsubscribe(token(req), ports);
    log().info(
      { teamId: claims.teamId, emailId: claims.emailId, topicId: claims.topicId },
      'one-click unsubscribe',
    );
    page(
      res,
      200,
      'You are unsubscribed',
      `<p>${escapeHtml(claims.recipient)} will not receive these emails any more.</p>`,
    );
  };

  const show: RequestHandler = async (req, res) => {
    preferencesPage(res, token(req), await readPreferences(token(req), ports), false);
  };

  const save: RequestHandler = async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const prefs = await savePreferences(
      token(req),
      { subscribed: formList(body.topic), unsubscribeAll: body.unsubscribe_all !== undefined },
      ports,
    );
    preferencesPage(res, token(req), prefs, true);
  };

  return [
    { path: `${UNSUBSCRIBE_PATH}/:token`, methods: { post: [form, oneClick], get: show } },
    { path: `${UNSUBSCRIBE_PATH}/:token/preferences`, methods: { post: [form, save] } },
  ];
}

/** Errors of these routes as a page (a person reads them, in a browser), with the API's status. */
export const unsubscribeErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof PetrelError) || err.statusCode >= 500) return next(err);
  page(
    res,
    err.statusCode,
    'This link does not work',
    `<p>${escapeHtml(err.message.replace(/^token: /, ''))}.</p>`,
  );
};

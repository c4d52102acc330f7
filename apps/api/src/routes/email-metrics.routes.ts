/**
 * GET /emails/metrics (`resend.emails.metrics`) and a broadcast's analytics,
 * GET /broadcasts/:id/recipients (`resend.broadcasts.recipients`) and
 * GET /broadcasts/:id/clicked-links (`resend.broadcasts.clickedLinks`). Thin: core's use-cases
 * over the counters and indexes the store keeps as events are recorded (docs/architecture.md,
 * "Email metrics"). `/emails/metrics` is a fixed path: the route table mounts it before
 * `/emails/:id`.
 */
import type { RequestHandler } from 'express';
import {
  getEmailMetrics,
  listBroadcastClickedLinks,
  listBroadcastRecipients,
  type AnalyticsPage,
  type BroadcastAnalyticsPorts,
  type EmailMetricsPorts,
} from '@petrel/core';
import { parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface EmailMetricsRouteDeps {
  metrics: EmailMetricsPorts;
  analytics: BroadcastAnalyticsPorts;
}

export function emailMetricsRoutes(deps: EmailMetricsRouteDeps): RouteSpec[] {
  const metrics: RequestHandler = async (req, res) => {
    res.json(
      await getEmailMetrics(deps.metrics, res.locals.auth.teamId, req.query as Record<string, unknown>),
    );
  };
  // a broadcast's analytics: its id, the team and the page, then the use-case's own query reading
  const ofBroadcast =
    (
      list: (
        teamId: string,
        id: string,
        query: Record<string, unknown>,
        page: AnalyticsPage,
      ) => Promise<unknown>,
    ): RequestHandler =>
    async (req, res) => {
      const query = req.query as Record<string, unknown>;
      res.json(await list(res.locals.auth.teamId, pathParam(req, 'id'), query, parsePageQuery(req)));
    };
  const recipients = ofBroadcast((team, id, query, page) =>
    listBroadcastRecipients(deps.analytics, team, id, query, page),
  );
  const clickedLinks = ofBroadcast((team, id, _query, page) =>
    listBroadcastClickedLinks(deps.analytics, team, id, page),
  );
  return [
    { path: '/emails/metrics', methods: { get: metrics } },
    { path: '/broadcasts/:id/recipients', methods: { get: recipients } },
    { path: '/broadcasts/:id/clicked-links', methods: { get: clickedLinks } },
  ];
}

/**
 * GET /logs, GET /logs/:id (Resend's `logs.list`, `logs.get`): the team's API requests, newest
 * first, with cursor pagination and Petrel's filters `method`, `status` (`422` or `4xx`) and
 * `endpoint` (a path prefix); a log's bodies on its own page (core: logs/).
 */
import { getRequestLog, listRequestLogs, parseRequestLogFilter, type RequestLogDeps } from '@petrel/core';
import { parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export function logsRoutes(deps: RequestLogDeps): RouteSpec[] {
  return [
    {
      path: '/logs',
      methods: {
        get: async (req, res) => {
          const page = parsePageQuery(req);
          const filter = parseRequestLogFilter(req.query as Record<string, unknown>);
          const found = await listRequestLogs(deps, res.locals.auth.teamId, page, filter);
          res.json({ object: 'list', has_more: found.hasMore, data: found.items });
        },
      },
    },
    {
      path: '/logs/:id',
      methods: {
        get: async (req, res) => {
          const log = await getRequestLog(deps, res.locals.auth.teamId, pathParam(req, 'id'));
          res.json({ object: 'log', ...log });
        },
      },
    },
  ];
}

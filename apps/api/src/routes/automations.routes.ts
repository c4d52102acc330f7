/**
 * /automations: create, read, list, update, delete, stop, duplicate, and the runs of an
 * automation (Resend's automations API). Thin: parse with the wire schema, call a use-case of
 * core (the graph rules, stopping cancels runs) or a store read, map to the wire shape.
 */
import type { Request, RequestHandler } from 'express';
import {
  AUTOMATION_RUN_STATUSES,
  AUTOMATION_STATUSES,
  LIMITS,
  PetrelError,
  createAutomationSchema,
  notFound,
  updateAutomationSchema,
  validationError,
  type AutomationRunStatus,
  type AutomationStatus,
} from '@petrel/contracts';
import {
  createAutomation,
  deleteAutomation,
  duplicateAutomation,
  stopAutomation,
  updateAutomation,
} from '@petrel/core';
import type { AutomationRunsStore, AutomationsStore } from '@petrel/store';
import { automationListItem, automationToWire, runToWire } from './automation-wire.js';
import { actionHandler, createHandler, deleteHandler, getHandler, parseBody } from './parse-body.js';
import { listBody, parsePageQuery, queryParam } from './pagination.js';
import { pathParam, teamOf, type RouteSpec } from './route-table.js';

export interface AutomationsRouteDeps {
  automations: AutomationsStore;
  runs: AutomationRunsStore;
  clock: { now(): number };
}

export function automationsRoutes(deps: AutomationsRouteDeps): RouteSpec[] {
  const id = (req: Request): string => pathParam(req, 'automationId');

  const create = createHandler(createAutomationSchema, 'automation', (args) => createAutomation(args, deps));

  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const status = queryParam(req, 'status');
    if (status !== undefined && !(AUTOMATION_STATUSES as readonly string[]).includes(status))
      throw validationError("status: must be 'enabled' or 'disabled'");
    const result = await deps.automations.list(teamOf(res), page, status as AutomationStatus | undefined);
    res.json(listBody(result, page, 'automation', automationListItem));
  };

  const get = getHandler(
    'Automation',
    (teamId, req) => deps.automations.get(teamId, id(req)),
    automationToWire,
  );

  const update = actionHandler('automation', (teamId, req) => {
    const input = parseBody(updateAutomationSchema, req.body);
    return updateAutomation({ teamId, id: id(req).toLowerCase(), input }, deps);
  });

  const remove = deleteHandler('automation', (teamId, req) =>
    deleteAutomation({ teamId, id: id(req).toLowerCase() }, deps),
  );

  const stop: RequestHandler = async (req, res) => {
    const done = await stopAutomation({ teamId: teamOf(res), id: id(req).toLowerCase() }, deps);
    res.json({ object: 'automation', id: done.id, status: done.status });
  };

  const duplicate: RequestHandler = async (req, res) => {
    const done = await duplicateAutomation({ teamId: teamOf(res), id: id(req) }, deps);
    res.status(201).json({ object: 'automation', id: done.id });
  };

  const listRuns: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const raw = queryParam(req, 'status');
    const statuses = raw === undefined ? undefined : raw.split(',').map((s) => s.trim());
    const bad = statuses?.find((s) => !(AUTOMATION_RUN_STATUSES as readonly string[]).includes(s));
    if (bad !== undefined)
      throw new PetrelError(
        'validation_error',
        `status: "${bad.slice(0, 40)}" is not one of ${AUTOMATION_RUN_STATUSES.join(', ')}`,
      );
    const automation = await deps.automations.get(teamOf(res), id(req));
    if (!automation) throw notFound('Automation');
    const result = await deps.runs.listRuns(
      teamOf(res),
      automation.id,
      page,
      statuses as AutomationRunStatus[] | undefined,
    );
    res.json(listBody(result, page, 'run'));
  };

  const getRun: RequestHandler = async (req, res) => {
    const automation = await deps.automations.get(teamOf(res), id(req));
    if (!automation) throw notFound('Automation');
    const run = await deps.runs.getRunOf(teamOf(res), automation.id, pathParam(req, 'runId'));
    if (!run) throw notFound('Automation run');
    res.json(runToWire(run));
  };

  return [
    { path: '/automations', methods: { post: create, get: list } },
    { path: '/automations/:automationId', methods: { get, patch: update, delete: remove } },
    { path: '/automations/:automationId/stop', methods: { post: stop } },
    { path: '/automations/:automationId/duplicate', methods: { post: duplicate } },
    { path: '/automations/:automationId/runs', methods: { get: listRuns } },
    { path: '/automations/:automationId/runs/:runId', methods: { get: getRun } },
  ];
}

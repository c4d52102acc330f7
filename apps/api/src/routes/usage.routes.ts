/** GET /usage (Resend's `usage.get`): the team's counts against its limits (core: usage/). */
import { getUsage, type UsageDeps } from '@petrel/core';
import type { RouteSpec } from './route-table.js';

export function usageRoutes(deps: UsageDeps): RouteSpec[] {
  return [
    {
      path: '/usage',
      methods: {
        get: async (_req, res) => {
          res.json(await getUsage(deps, res.locals.auth.teamId));
        },
      },
    },
  ];
}

/**
 * The deprecated /audiences API, kept for clients written before segments (older SDKs call
 * POST/GET /audiences and GET/DELETE /audiences/:id; SDK 6.38 still uses the audience-scoped
 * contact routes when given `audienceId`). An audience IS a segment: same ids, same records.
 *
 * Under /audiences/:id/contacts the audience must exist (404 otherwise); creating a contact
 * there adds it to that segment, and the contact routes below it act on the contact itself,
 * as /contacts/:c does (contacts are team-wide, an audience only groups them).
 */
import type { RequestHandler } from 'express';
import { notFound } from '@petrel/contracts';
import { pathParam, type RouteSpec } from './route-table.js';
import {
  contactItemHandlers,
  createContactHandler,
  segmentMembersHandler,
  type AudienceStores,
} from './contacts.routes.js';
import { segmentCrud } from './segments.routes.js';

export function audiencesRoutes(s: AudienceStores): RouteSpec[] {
  const crud = segmentCrud(s, 'audience', 'Audience');
  const requireAudience: RequestHandler = async (req, res, next) => {
    if (!(await s.segments.get(res.locals.auth.teamId, pathParam(req, 'audienceId'))))
      throw notFound('Audience');
    next();
  };
  const item = contactItemHandlers(s);
  return [
    { path: '/audiences', methods: crud.collection },
    { path: '/audiences/:id', methods: { get: crud.item.get, delete: crud.item.delete } },
    {
      path: '/audiences/:audienceId/contacts',
      methods: {
        post: [requireAudience, createContactHandler(s, 'audienceId')],
        get: segmentMembersHandler(s, 'audienceId', 'Audience'),
      },
    },
    {
      path: '/audiences/:audienceId/contacts/:c',
      methods: {
        get: [requireAudience, item.get],
        patch: [requireAudience, item.patch],
        delete: [requireAudience, item.delete],
      },
    },
  ];
}

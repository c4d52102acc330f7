/**
 * /segments: create, list, read, rename, delete, and a segment's contacts (Resend's segments
 * API; `resend.audiences` is the same object in the SDK). Deleting a segment removes its
 * memberships, never its contacts. Lists return every segment when `limit` is omitted (Resend's
 * older list endpoints), up to UNPAGED_LIST_MAX.
 */
import type { RequestHandler } from 'express';
import { notFound, type SegmentRecord } from '@petrel/contracts';
import { segmentSchema } from '@petrel/core';
import { parseBody } from './parse-body.js';
import { UNPAGED_LIST_MAX, listHandler } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';
import { segmentListItem } from './contact-wire.js';
import { segmentMembersHandler, type AudienceStores } from './contacts.routes.js';

/**
 * The segment CRUD under `base`, answering with `object` (`segment`, or `audience` for the
 * deprecated /audiences routes, as Resend answered them).
 */
export function segmentCrud(
  s: AudienceStores,
  object: 'segment' | 'audience',
  what: string,
): {
  collection: Record<'post' | 'get', RequestHandler>;
  item: Record<'get' | 'patch' | 'delete', RequestHandler>;
} {
  const found = async (teamId: string, id: string): Promise<SegmentRecord> => {
    const segment = await s.segments.get(teamId, id);
    if (!segment) throw notFound(what);
    return segment;
  };
  return {
    collection: {
      post: async (req, res) => {
        const { name } = parseBody(segmentSchema, req.body);
        const segment = await s.segments.create(res.locals.auth.teamId, name);
        res.status(201).json({ object, id: segment.id, name: segment.name });
      },
      get: listHandler(object, (t, p) => s.segments.list(t, p), segmentListItem, UNPAGED_LIST_MAX),
    },
    item: {
      get: async (req, res) => {
        const segment = await found(res.locals.auth.teamId, pathParam(req, 'id'));
        res.json({ object, ...segmentListItem(segment) });
      },
      patch: async (req, res) => {
        const { name } = parseBody(segmentSchema, req.body);
        const segment = await found(res.locals.auth.teamId, pathParam(req, 'id'));
        if (!(await s.segments.rename(res.locals.auth.teamId, segment.id, name))) throw notFound(what);
        res.json({ object, id: segment.id });
      },
      delete: async (req, res) => {
        const segment = await found(res.locals.auth.teamId, pathParam(req, 'id'));
        if (!(await s.segments.remove(res.locals.auth.teamId, segment.id))) throw notFound(what);
        res.json({ object, id: segment.id, deleted: true });
      },
    },
  };
}

export function segmentsRoutes(s: AudienceStores): RouteSpec[] {
  const crud = segmentCrud(s, 'segment', 'Segment');
  return [
    { path: '/segments', methods: crud.collection },
    { path: '/segments/:id', methods: crud.item },
    { path: '/segments/:id/contacts', methods: { get: segmentMembersHandler(s, 'id', 'Segment') } },
  ];
}

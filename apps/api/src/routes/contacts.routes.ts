/**
 * /contacts: create, list (optionally one segment's members), read, update, delete, and a
 * contact's segments (Resend's contacts API). Thin: parse the body with the wire schema, call a
 * use-case (or a store read), map the result to the Resend wire shape.
 *
 * `:c` is a contact id or its email, raw (`/contacts/a+b@x.com`, as the SDK sends it) or
 * percent-encoded; an email is matched case-insensitively (as a mailbox). `/contacts/imports`
 * is another route: fixed segments are mounted before parameters (route-table.ts).
 *
 * Choices where Resend's behaviour is not documented: a create whose mailbox already has a
 * contact is a 422 `validation_error`; deleting an unknown contact is a 404 (Resend answers 200,
 * but the SDK surfaces errors, so a caller learns the contact was not there); GET returns only
 * the properties the contact has a value for (fallbacks apply when rendering, not here).
 */
import type { Request, RequestHandler } from 'express';
import { notFound } from '@petrel/contracts';
import {
  createContact,
  createContactSchema,
  updateContact,
  updateContactSchema,
  type TopicsReader,
} from '@petrel/core';
import type { ContactPropertiesStore, ContactsStore, SegmentsStore } from '@petrel/store';
import { contactListItem, contactWire, segmentListItem } from './contact-wire.js';
import { parseBody } from './parse-body.js';
import { UNPAGED_LIST_MAX, listBody, pageArray, parsePageQuery, queryParam } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

/** The stores of the audience routes. */
export interface AudienceStores {
  contacts: ContactsStore;
  segments: SegmentsStore;
  properties: ContactPropertiesStore;
  topics: TopicsReader;
}

export const contactParam = (req: Request): string => pathParam(req, 'c');

/** Lists the members of the segment named by the path's `segmentParam` (404 `what` when none). */
export function segmentMembersHandler(s: AudienceStores, segmentParam: string, what: string): RequestHandler {
  return async (req, res) => {
    const teamId = res.locals.auth.teamId;
    const segment = await s.segments.get(teamId, pathParam(req, segmentParam));
    if (!segment) throw notFound(what);
    await sendContactList(s, req, res.locals.auth.teamId, segment.id, res);
  };
}

async function sendContactList(
  s: AudienceStores,
  req: Request,
  teamId: string,
  segmentId: string | undefined,
  res: Parameters<RequestHandler>[1],
): Promise<void> {
  const page = parsePageQuery(req, UNPAGED_LIST_MAX);
  res.json(listBody(await s.contacts.list(teamId, page, segmentId), page, 'contact', contactListItem));
}

/** GET, PATCH, DELETE of one contact (also mounted under /audiences/:id/contacts). */
export function contactItemHandlers(s: AudienceStores): Record<'get' | 'patch' | 'delete', RequestHandler> {
  const ports = { contacts: s.contacts, properties: s.properties };
  return {
    get: async (req, res) => {
      const contact = await s.contacts.get(res.locals.auth.teamId, contactParam(req));
      if (!contact) throw notFound('Contact');
      res.json(contactWire(contact));
    },
    patch: async (req, res) => {
      const input = parseBody(updateContactSchema, req.body);
      const { id } = await updateContact(
        { teamId: res.locals.auth.teamId, idOrEmail: contactParam(req), input },
        ports,
      );
      res.json({ object: 'contact', id });
    },
    delete: async (req, res) => {
      const id = await s.contacts.remove(res.locals.auth.teamId, contactParam(req));
      if (!id) throw notFound('Contact');
      res.json({ object: 'contact', id, contact: id, deleted: true });
    },
  };
}

/** POST of a contact; `audienceId` (legacy route) adds it to that segment. */
export function createContactHandler(s: AudienceStores, audienceParam?: string): RequestHandler {
  const ports = { contacts: s.contacts, properties: s.properties };
  return async (req, res) => {
    const input = parseBody(createContactSchema, req.body);
    if (audienceParam) input.audience_id = pathParam(req, audienceParam);
    const { id } = await createContact({ teamId: res.locals.auth.teamId, input }, ports);
    res.status(201).json({ object: 'contact', id });
  };
}

export function contactsRoutes(s: AudienceStores): RouteSpec[] {
  const list: RequestHandler = async (req, res) => {
    const teamId = res.locals.auth.teamId;
    const filter = queryParam(req, 'segment_id');
    let segmentId: string | undefined;
    if (filter) {
      const segment = await s.segments.get(teamId, filter);
      if (!segment) throw notFound('Segment');
      segmentId = segment.id;
    }
    await sendContactList(s, req, teamId, segmentId, res);
  };

  const segmentsOf: RequestHandler = async (req, res) => {
    const segments = await s.contacts.segmentsOf(res.locals.auth.teamId, contactParam(req));
    if (!segments) throw notFound('Contact');
    const { data, has_more } = pageArray(
      segments.map(segmentListItem),
      parsePageQuery(req, UNPAGED_LIST_MAX),
    );
    res.json({ object: 'list', has_more, data });
  };

  const membership =
    (op: 'add' | 'remove'): RequestHandler =>
    async (req, res) => {
      const segmentId = pathParam(req, 'segmentId');
      const result = await s.contacts.setSegment(res.locals.auth.teamId, contactParam(req), segmentId, op);
      if (result === 'no_contact') throw notFound('Contact');
      if (result === 'no_segment') throw notFound('Segment');
      if (result === 'not_member') throw notFound('Contact segment');
      const contact = await s.contacts.resolveId(res.locals.auth.teamId, contactParam(req));
      const id = segmentId.toLowerCase();
      const body = { object: 'contact_segment', id, contact_id: contact, segment_id: id };
      // the SDK's RemoveContactSegmentResponseSuccess declares `audienceId` (the segment, as the
      // legacy audience-scoped API named it) besides Resend's documented fields
      res.json(op === 'add' ? body : { ...body, audienceId: id, deleted: true });
    };

  return [
    { path: '/contacts', methods: { post: createContactHandler(s), get: list } },
    { path: '/contacts/:c', methods: contactItemHandlers(s) },
    { path: '/contacts/:c/segments', methods: { get: segmentsOf } },
    {
      path: '/contacts/:c/segments/:segmentId',
      methods: { post: membership('add'), delete: membership('remove') },
    },
  ];
}

/**
 * /contacts/:c/topics: a contact's subscription to every topic of the team (its explicit
 * choice, else the topic's default), and setting choices. The SDK sends the choices as a bare
 * JSON array; `{ topics: [...] }` (Resend's OpenAPI) is read the same way.
 */
import type { RequestHandler } from 'express';
import { LIMITS, notFound } from '@petrel/contracts';
import { mailboxKey, updateContactTopics, updateContactTopicsSchema } from '@petrel/core';
import { parseBody } from './parse-body.js';
import { pageArray, parsePageQuery } from './pagination.js';
import type { RouteSpec } from './route-table.js';
import { contactParam, type AudienceStores } from './contacts.routes.js';

export function contactTopicsRoutes(s: AudienceStores): RouteSpec[] {
  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const teamId = res.locals.auth.teamId;
    const contact = await s.contacts.get(teamId, contactParam(req));
    if (!contact) throw notFound('Contact');
    const topics = await s.topics.all(teamId);
    const choices = await s.contacts.topicChoices(
      teamId,
      mailboxKey(contact.email),
      topics.map((t) => t.id),
    );
    const items = topics.map((t, i) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      subscription: choices[i] ?? t.default_subscription,
    }));
    const { data, has_more } = pageArray(items, page);
    res.json({ object: 'list', has_more, data });
  };

  const update: RequestHandler = async (req, res) => {
    const input = parseBody(updateContactTopicsSchema, req.body);
    const { id } = await updateContactTopics(
      { teamId: res.locals.auth.teamId, idOrEmail: contactParam(req), input },
      { contacts: s.contacts },
    );
    res.json({ object: 'contact_topics', id, contact_id: id });
  };

  return [{ path: '/contacts/:c/topics', methods: { get: list, patch: update } }];
}

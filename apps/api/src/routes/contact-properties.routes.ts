/**
 * /contact-properties: create, list, read, update (the fallback only), delete (Resend's contact
 * properties API). The SDK maps each item of the list and of GET to camelCase itself, so the
 * wire keys are snake_case (`created_at`, `fallback_value`) and the list's `data` is an array.
 * Deleting a property makes the values contacts hold for it unreadable at once.
 */
import type { RequestHandler } from 'express';
import { notFound, type ContactPropertyRecord } from '@petrel/contracts';
import {
  createContactProperty,
  createContactPropertySchema,
  updateContactProperty,
  updateContactPropertySchema,
} from '@petrel/core';
import type { ContactPropertiesStore } from '@petrel/store';
import { createHandler, parseBody } from './parse-body.js';
import { listHandler } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

const wire = (p: ContactPropertyRecord) => ({
  id: p.id,
  key: p.key,
  type: p.type,
  fallback_value: p.fallback_value,
  created_at: p.created_at,
});

export function contactPropertiesRoutes(store: ContactPropertiesStore): RouteSpec[] {
  const ports = { properties: store };

  const create = createHandler(createContactPropertySchema, 'contact_property', (args) =>
    createContactProperty(args, ports),
  );

  const list = listHandler('contact property', (t, p) => store.list(t, p), wire);

  const get: RequestHandler = async (req, res) => {
    const property = await store.get(res.locals.auth.teamId, pathParam(req, 'id'));
    if (!property) throw notFound('Contact property');
    res.json({ object: 'contact_property', ...wire(property) });
  };

  const update: RequestHandler = async (req, res) => {
    const input = parseBody(updateContactPropertySchema, req.body);
    const { id } = await updateContactProperty(
      { teamId: res.locals.auth.teamId, id: pathParam(req, 'id'), input },
      ports,
    );
    res.json({ object: 'contact_property', id });
  };

  const remove: RequestHandler = async (req, res) => {
    const property = await store.get(res.locals.auth.teamId, pathParam(req, 'id'));
    if (!property || !(await store.remove(res.locals.auth.teamId, property.id))) {
      throw notFound('Contact property');
    }
    res.json({ object: 'contact_property', id: property.id, deleted: true });
  };

  return [
    { path: '/contact-properties', methods: { post: create, get: list } },
    { path: '/contact-properties/:id', methods: { get, patch: update, delete: remove } },
  ];
}

/**
 * /contacts/imports: upload a CSV as a contact import, read one, list them (Resend's
 * contacts.imports.create / get / list).
 *
 * POST streams the multipart body (http/multipart-upload.ts): the `file` part goes to Redis
 * in chunks of CONTACT_IMPORT_CHUNK_BYTES as it arrives, with backpressure (the request is read
 * no faster than Redis takes it), so the API holds one chunk per upload, never the file; the
 * small fields are collected. The SDK sends `file` first, so the options can only be checked
 * once the file is in: then core's createContactImport checks them, creates the import and
 * queues its job, and only then the request is answered 201. An upload over
 * CONTACT_IMPORT_MAX_BYTES is refused with 413 the moment it passes the limit (the connection is
 * then closed: the rest is not read). Whatever is refused has its chunks deleted.
 */
import type { RequestHandler } from 'express';
import {
  CONTACT_IMPORT_STATUSES,
  LIMITS,
  notFound,
  validationError,
  type ContactImportStatus,
} from '@petrel/contracts';
import {
  CONTACT_IMPORT_POLICY,
  createContactImport,
  newId,
  type ContactImportQueuePort,
  type ContactImportRecord,
} from '@petrel/core';
import { CONTACT_IMPORT_CHUNK_BYTES, type ContactImportsStore } from '@petrel/store';
import {
  checkUploadHeaders,
  receiveUpload,
  type Upload,
  type UploadOptions,
} from '../http/multipart-upload.js';
import { listBody, parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface ContactImportsRouteDeps {
  store: ContactImportsStore;
  queue: ContactImportQueuePort;
  /** CONTACT_IMPORT_MAX_BYTES: largest file accepted. */
  maxBytes: number;
}

/** The wire shape (Resend's ContactImport), plus `error` when failed and the first failing rows. */
function contactImportToWire(r: ContactImportRecord): Record<string, unknown> {
  return {
    object: 'contact_import',
    id: r.id,
    status: r.status,
    created_at: r.created_at,
    completed_at: r.completed_at,
    counts: r.counts,
    ...(r.status === 'failed' && { error: r.error }),
    ...(r.failures.length > 0 && { failures: r.failures }),
  };
}

/** The contact-import routes (full access; the app's access check applies). */
export function contactImportsRoutes(deps: ContactImportsRouteDeps): RouteSpec[] {
  const { store } = deps;
  const ports = { references: store, intake: store, queue: deps.queue, clock: Date };
  const form: UploadOptions = {
    field: 'file',
    what: 'the CSV',
    maxBytes: deps.maxBytes,
    tooLarge: `file: larger than ${deps.maxBytes} bytes, the limit for a contact import (CONTACT_IMPORT_MAX_BYTES)`,
  };

  const create: RequestHandler = async (req, res) => {
    checkUploadHeaders(req, res, form);
    const teamId = res.locals.auth.teamId;
    const importId = newId();
    let upload: Upload;
    try {
      upload = await receiveUpload(req, res, form, {
        chunkBytes: CONTACT_IMPORT_CHUNK_BYTES,
        headBytes: CONTACT_IMPORT_POLICY.maxHeaderBytes,
        write: (chunk) => store.appendChunk(teamId, importId, chunk),
      });
    } catch (err) {
      await store.dropChunks(teamId, importId).catch(() => undefined);
      throw err;
    }
    if (!upload.file) {
      await store.dropChunks(teamId, importId).catch(() => undefined);
      throw validationError('file: is required (a CSV file as the `file` part)');
    }
    const { id } = await createContactImport(
      {
        teamId,
        importId,
        fields: upload.fields,
        head: { bytes: upload.file.head, complete: upload.file.bytes === upload.file.head.length },
        bytes: upload.file.bytes,
      },
      ports,
    );
    res.status(201).json({ object: 'contact_import', id });
  };

  const get: RequestHandler = async (req, res) => {
    const found = await store.get(res.locals.auth.teamId, pathParam(req, 'id').toLowerCase());
    if (!found) throw notFound('Contact import');
    res.json(contactImportToWire(found));
  };

  const list: RequestHandler = async (req, res) => {
    const page = parsePageQuery(req, LIMITS.paginationDefault);
    const raw = (req.query as Record<string, unknown>).status;
    if (
      raw !== undefined &&
      !(typeof raw === 'string' && (CONTACT_IMPORT_STATUSES as readonly string[]).includes(raw))
    )
      throw validationError(`status: must be one of ${CONTACT_IMPORT_STATUSES.join(', ')}`);
    const result = await store.list(res.locals.auth.teamId, page, raw as ContactImportStatus | undefined);
    res.json(listBody(result, page, 'contact import', contactImportToWire));
  };

  return [
    { path: '/contacts/imports', methods: { post: create, get: list } },
    { path: '/contacts/imports/:id', methods: { get } },
  ];
}

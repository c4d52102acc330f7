/**
 * /contacts/imports: upload a CSV as a contact import, read one, list them (Resend's
 * contacts.imports.create / get / list).
 *
 * POST streams the multipart body (busboy): the `file` part goes to Redis in chunks of
 * CONTACT_IMPORT_CHUNK_BYTES as it arrives, with backpressure (the request is read no faster
 * than Redis takes it), so the API holds one chunk per upload, never the file; the small fields
 * are collected. The SDK sends `file` first, so the options can only be checked once the file
 * is in: then core's createContactImport checks them, creates the import and queues its job,
 * and only then the request is answered 201. An upload over CONTACT_IMPORT_MAX_BYTES is
 * refused with 413 the moment it passes the limit (the connection is then closed: the rest is
 * not read). Whatever is refused has its chunks deleted.
 */
import type { Request, RequestHandler, Response } from 'express';
import busboy from 'busboy';
import {
  CONTACT_IMPORT_STATUSES,
  LIMITS,
  PetrelError,
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
import { parsePageQuery } from './pagination.js';
import { pathParam, type RouteSpec } from './route-table.js';

export interface ContactImportsRouteDeps {
  store: ContactImportsStore;
  queue: ContactImportQueuePort;
  /** CONTACT_IMPORT_MAX_BYTES: largest file accepted. */
  maxBytes: number;
}

/** Bounds of the multipart body besides the file: the option fields are small JSON. */
const FORM_LIMITS = { fieldBytes: 1024 * 1024, fields: 8, parts: 16 } as const;

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

interface Upload {
  fields: Record<string, string>;
  file: { bytes: number; head: Uint8Array } | undefined;
}

/**
 * Reads the multipart body: the file into the import's chunks, the fields into a map. Rejects
 * with a PetrelError for a body it refuses; the caller deletes what was written.
 */
function receive(
  req: Request,
  res: Response,
  deps: ContactImportsRouteDeps,
  teamId: string,
  importId: string,
) {
  return new Promise<Upload>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: {
          fieldSize: FORM_LIMITS.fieldBytes,
          fields: FORM_LIMITS.fields,
          parts: FORM_LIMITS.parts,
          files: 1,
        },
      });
    } catch (err) {
      reject(validationError(`body: not a multipart/form-data body (${(err as Error).message})`));
      return;
    }
    const fields: Record<string, string> = {};
    let file: Upload['file'];
    let fileDone: Promise<void> = Promise.resolve();
    let failed = false;
    let fileStream: (NodeJS.ReadableStream & { destroy(): void }) | undefined;
    /** A refusal (PetrelError) or a failed write to Redis (the error middleware maps it). */
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      // stop reading: the rest of the body is not wanted, and the connection cannot be reused
      req.unpipe(bb);
      req.pause();
      fileStream?.destroy();
      res.setHeader('Connection', 'close');
      reject(err);
    };

    bb.on('file', (name, stream) => {
      if (name !== 'file') {
        stream.resume();
        return fail(validationError(`${name}: unknown file field (the CSV goes in \`file\`)`));
      }
      fileStream = stream;
      file = { bytes: 0, head: new Uint8Array(0) };
      const current = file;
      fileDone = (async () => {
        const head: Buffer[] = [];
        let headBytes = 0;
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        const flush = async () => {
          if (pendingBytes === 0) return;
          const chunk = Buffer.concat(pending, pendingBytes);
          pending = [];
          pendingBytes = 0;
          await deps.store.appendChunk(teamId, importId, chunk);
        };
        for await (const data of stream as AsyncIterable<Buffer>) {
          if (failed) return;
          current.bytes += data.length;
          if (current.bytes > deps.maxBytes) {
            throw new PetrelError(
              'payload_too_large',
              `file: larger than ${deps.maxBytes} bytes, the limit for a contact import (CONTACT_IMPORT_MAX_BYTES)`,
            );
          }
          if (headBytes < CONTACT_IMPORT_POLICY.maxHeaderBytes) {
            const part = data.subarray(0, CONTACT_IMPORT_POLICY.maxHeaderBytes - headBytes);
            head.push(part);
            headBytes += part.length;
          }
          pending.push(data);
          pendingBytes += data.length;
          if (pendingBytes >= CONTACT_IMPORT_CHUNK_BYTES) await flush();
        }
        await flush();
        current.head = Buffer.concat(head, headBytes);
      })();
      fileDone.catch(fail);
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(validationError(`${name}: longer than ${FORM_LIMITS.fieldBytes} bytes`));
      if (Object.hasOwn(fields, name)) return fail(validationError(`${name}: is given twice`));
      fields[name] = value;
    });
    bb.on('filesLimit', () => fail(validationError('file: only one file may be sent')));
    bb.on('fieldsLimit', () => fail(validationError(`body: more than ${FORM_LIMITS.fields} fields`)));
    bb.on('partsLimit', () => fail(validationError(`body: more than ${FORM_LIMITS.parts} parts`)));
    bb.on('error', (err: Error) =>
      fail(validationError(`body: malformed multipart/form-data (${err.message})`)),
    );
    bb.on('close', () => {
      fileDone.then(
        () => {
          if (!failed) resolve({ fields, file });
        },
        () => undefined, // already failed
      );
    });
    req.on('aborted', () => fail(validationError('body: the upload was aborted by the client', 400)));
    req.pipe(bb);
  });
}

/** The contact-import routes (full access; the app's access check applies). */
export function contactImportsRoutes(deps: ContactImportsRouteDeps): RouteSpec[] {
  const { store } = deps;
  const ports = { references: store, intake: store, queue: deps.queue };

  const create: RequestHandler = async (req, res) => {
    const type = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\b/i.test(type)) {
      throw new PetrelError(
        'unsupported_media_type',
        `Content-Type must be multipart/form-data with the CSV in \`file\` (got ${type || 'none'})`,
      );
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > deps.maxBytes + FORM_LIMITS.fieldBytes * FORM_LIMITS.fields) {
      res.setHeader('Connection', 'close');
      req.pause();
      throw new PetrelError(
        'payload_too_large',
        `file: larger than ${deps.maxBytes} bytes, the limit for a contact import (CONTACT_IMPORT_MAX_BYTES)`,
      );
    }
    const teamId = res.locals.auth.teamId;
    const importId = newId();
    let upload: Upload;
    try {
      upload = await receive(req, res, deps, teamId, importId);
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
    if (!result) throw validationError(`${page.after ? 'after' : 'before'}: no such contact import`);
    res.json({ object: 'list', has_more: result.hasMore, data: result.items.map(contactImportToWire) });
  };

  return [
    { path: '/contacts/imports', methods: { post: create, get: list } },
    { path: '/contacts/imports/:id', methods: { get } },
  ];
}

/**
 * A multipart/form-data upload of one file and a few small fields (RFC 7578), streamed with
 * busboy: the file goes to `write` in chunks of `chunkBytes` as it arrives, with backpressure
 * (the request is read no faster than `write` takes it), so the process holds one chunk per
 * upload, never the file; its first `headBytes` are kept for the caller to check; the fields are
 * collected. A body over `maxBytes` is refused with 413 the moment it passes the limit, and the
 * connection is then closed (RFC 9110 15.5.14: the rest is not read).
 */
import type { Request, Response } from 'express';
import busboy from 'busboy';
import { PetrelError, validationError } from '@petrel/contracts';

/** Bounds of the body besides the file (busboy's limits): the fields are small (JSON options). */
const FORM_LIMITS = { fieldSize: 1024 * 1024, fields: 8, parts: 16, files: 1 } as const;

export interface UploadOptions {
  /** The part the one file is sent in, and what the file is, for messages ("the CSV"). */
  field: string;
  what: string;
  /** The largest file accepted, and the message of the 413 past it. */
  maxBytes: number;
  tooLarge: string;
}

interface UploadSink {
  /** How many bytes of the file go to `write` at once (the last chunk may be smaller). */
  chunkBytes: number;
  /** How many of the file's first bytes are kept as `head`. */
  headBytes: number;
  write(chunk: Buffer): Promise<void>;
}

/** The fields, and the file's size and head (undefined when the body had no file part). */
export interface Upload {
  fields: Record<string, string>;
  file: { bytes: number; head: Uint8Array } | undefined;
}

/**
 * Refuses, before anything is read, a body that is not multipart (415) or whose declared length
 * is over the file's limit plus the fields' (413, the connection closed).
 */
export function checkUploadHeaders(req: Request, res: Response, opts: UploadOptions): void {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw new PetrelError(
      'unsupported_media_type',
      `Content-Type must be multipart/form-data with ${opts.what} in \`${opts.field}\` (got ${type || 'none'})`,
    );
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > opts.maxBytes + FORM_LIMITS.fieldSize * FORM_LIMITS.fields) {
    res.setHeader('Connection', 'close');
    req.pause();
    throw new PetrelError('payload_too_large', opts.tooLarge);
  }
}

/**
 * Reads the body: the file into `sink`, the fields into a map. Rejects with a PetrelError for a
 * body it refuses (or with the error of a failed write); the caller undoes what was written.
 */
export function receiveUpload(req: Request, res: Response, opts: UploadOptions, sink: UploadSink) {
  return new Promise<Upload>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: FORM_LIMITS });
    } catch (err) {
      reject(validationError(`body: not a multipart/form-data body (${(err as Error).message})`));
      return;
    }
    const fields: Record<string, string> = {};
    let file: Upload['file'];
    let fileDone: Promise<void> = Promise.resolve();
    let failed = false;
    let fileStream: (NodeJS.ReadableStream & { destroy(): void }) | undefined;
    /** A refusal (PetrelError) or a failed write (the error middleware maps it). */
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
      if (name !== opts.field) {
        stream.resume();
        return fail(validationError(`${name}: unknown file field (${opts.what} goes in \`${opts.field}\`)`));
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
          await sink.write(chunk);
        };
        for await (const data of stream as AsyncIterable<Buffer>) {
          if (failed) return;
          current.bytes += data.length;
          if (current.bytes > opts.maxBytes) throw new PetrelError('payload_too_large', opts.tooLarge);
          if (headBytes < sink.headBytes) {
            const part = data.subarray(0, sink.headBytes - headBytes);
            head.push(part);
            headBytes += part.length;
          }
          pending.push(data);
          pendingBytes += data.length;
          if (pendingBytes >= sink.chunkBytes) await flush();
        }
        await flush();
        current.head = Buffer.concat(head, headBytes);
      })();
      fileDone.catch(fail);
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(validationError(`${name}: longer than ${FORM_LIMITS.fieldSize} bytes`));
      if (Object.hasOwn(fields, name)) return fail(validationError(`${name}: is given twice`));
      fields[name] = value;
    });
    bb.on('filesLimit', () => fail(validationError(`${opts.field}: only one file may be sent`)));
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

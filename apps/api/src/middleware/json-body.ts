/**
 * JSON body reader with a hard size limit that answers 413 AT ONCE: from Content-Length before
 * reading anything, or as soon as a chunked body passes the limit — without waiting for (or
 * buffering) the rest. The connection is then closed, since the unread remainder cannot be
 * skipped cheaply. (body-parser drains the whole request before answering, which lets a client
 * hold a handler for as long as it likes to keep sending.)
 */
import type { NextFunction, Request, Response } from 'express';
import { PetrelError } from '@petrel/contracts';

/**
 * Bodies their route reads itself, as a stream, and this reader must leave alone: the CSV upload
 * of POST /contacts/imports (multipart/form-data, up to CONTACT_IMPORT_MAX_BYTES) is streamed
 * into Redis by its route and never buffered whole.
 */
const STREAMED_BODY_ROUTES: ReadonlySet<string> = new Set(['POST /contacts/imports']);

export function jsonBody(limitFor: (req: Request) => number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (STREAMED_BODY_ROUTES.has(`${req.method} ${req.path.replace(/(?<=.)\/$/, '')}`)) return next();
    const type = req.headers['content-type'] ?? '';
    const declared = req.headers['content-length'];
    const hasBody =
      (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody) return next();
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      return next(
        new PetrelError(
          'unsupported_media_type',
          `Content-Type must be application/json (got ${type || 'none'})`,
        ),
      );
    }
    const charset = /charset=([^;\s]+)/i.exec(type)?.[1]?.toLowerCase().replace(/"/g, '');
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      return next(
        new PetrelError('unsupported_media_type', `Only utf-8 JSON is accepted (got charset ${charset})`),
      );
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      return next(new PetrelError('unsupported_media_type', `Content-Encoding ${encoding} is not supported`));
    }
    const limit = limitFor(req);
    const tooLarge = () => {
      res.setHeader('Connection', 'close');
      req.pause();
      next(
        new PetrelError(
          'payload_too_large',
          `Request body is larger than ${limit} bytes, the limit for this endpoint`,
        ),
      );
    };
    if (declared !== undefined && Number(declared) > limit) return tooLarge();

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('aborted', onAborted);
      if (err) return next(err);
      const text = Buffer.concat(chunks, size).toString('utf8');
      if (text.trim() === '') {
        req.body = undefined;
        return next();
      }
      try {
        req.body = JSON.parse(text);
      } catch (e) {
        return next(
          new PetrelError('validation_error', `Request body is not valid JSON: ${(e as Error).message}`, 400),
        );
      }
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.removeListener('data', onData);
        return tooLarge();
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (err: Error) =>
      finish(new PetrelError('validation_error', `Request body could not be read: ${err.message}`, 400));
    const onAborted = () =>
      finish(new PetrelError('validation_error', 'Request body was aborted by the client', 400));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  };
}

/**
 * The one error middleware: every error becomes `{ statusCode, name, message }` with statusCode
 * equal to the HTTP status. Client mistakes (bad JSON, oversize bodies, wrong content type) are
 * 4xx; anything unexpected is a logged 500 without internals; Redis being unreachable is a 503.
 */
import type { NextFunction, Request, Response } from 'express';
import { PetrelError, type ErrorBody } from '@petrel/contracts';
import { log } from '@petrel/observability';
import { isRedisUnavailable } from '@petrel/store';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  code?: string;
}

export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof PetrelError) return err.toBody();
  const e = (err ?? {}) as HttpLikeError;
  const status = e.statusCode ?? e.status;
  if (status && status >= 400 && status < 500 && e.expose !== false) {
    return { statusCode: status, name: 'validation_error', message: e.message ?? 'Bad request' };
  }
  if (isRedisUnavailable(e)) {
    return {
      statusCode: 503,
      name: 'service_unavailable',
      message: 'The service is temporarily unavailable; retry shortly',
    };
  }
  return { statusCode: 500, name: 'internal_server_error', message: 'An unexpected error occurred' };
}

export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const body = toErrorBody(err);
  if (body.statusCode >= 500) {
    log().error({ err, requestId: res.locals.requestId, path: req.path }, 'request failed');
  }
  if (res.headersSent) return;
  res.status(body.statusCode).json(body);
}

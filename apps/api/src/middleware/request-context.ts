/** Request id, per-request child logger (AsyncLocalStorage) and the request-duration metric. */
import type { NextFunction, Request, Response } from 'express';
import { newId } from '@petrel/core';
import { log, metrics, withLogContext } from '@petrel/observability';

export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const requestId = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : newId();
  res.setHeader('x-request-id', requestId);
  res.locals.requestId = requestId;
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route =
      (req.route?.path as string | undefined) ?? (res.statusCode === 404 ? 'unmatched' : req.path);
    metrics.httpDuration().observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
    const level = res.statusCode >= 500 ? 'error' : 'debug';
    log()[level](
      { method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1000) },
      'request',
    );
  });
  withLogContext({ requestId }, next);
}

/**
 * Hands every finished API request made with an API key to the team's request log (`GET /logs`):
 * method, path, status, user agent, time, and the bodies as they were parsed and answered. Only
 * references are kept here; the writer (packages/store RequestLogWriter) redacts, serialises and
 * writes them in batches after the response is out, so the request pays for none of it.
 *
 * Not logged: requests that failed authentication (no team), HEAD requests (Resend's `Log.method`
 * has no HEAD), requests of a dashboard session (no Authorization header: the dashboard's own page
 * loads and polling are not API usage), and reads of the log itself (a log of reading logs would
 * grow with each look).
 */
import type { NextFunction, Request, Response } from 'express';
import type { FinishedRequest } from '@petrel/store';

export interface RequestLogSink {
  add(request: FinishedRequest): void;
}

const isLogRead = (path: string): boolean => path === '/logs' || path.startsWith('/logs/');

export function requestLog(sink: RequestLogSink) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.headers.authorization === undefined || req.method === 'HEAD' || isLogRead(req.path))
      return next();
    const createdMs = Date.now();
    let responseBody: unknown;
    let responseText: string | undefined;
    let captured = false;
    const json = res.json;
    res.json = function capturedJson(this: Response, body?: unknown) {
      responseBody = body;
      captured = true;
      return json.call(this, body);
    };
    // a body serialised by the route itself (the acceptance's stored answer): kept as text and
    // parsed by the writer, off the request's path
    const send = res.send;
    res.send = function capturedSend(this: Response, body?: unknown) {
      if (!captured && typeof body === 'string' && /json/.test(String(res.getHeader('content-type'))))
        responseText = body;
      captured = true;
      return send.call(this, body);
    };
    res.on('finish', () => {
      sink.add({
        teamId: res.locals.auth.teamId,
        method: req.method,
        endpoint: req.path,
        status: res.statusCode,
        userAgent: req.get('user-agent') ?? null,
        createdMs,
        requestBody: req.body as unknown,
        responseBody,
        ...(responseText !== undefined && { responseText }),
      });
    });
    next();
  };
}

/**
 * The team's request rate (packages/core ratelimit: the rule and the header values), applied to
 * every authenticated request: one Redis round trip, then the RateLimit header fields on the
 * response whatever it turns out to be, or 429 `rate_limit_exceeded` with `retry-after` before
 * the body is read. A team without a limit gets no header fields.
 */
import type { NextFunction, Request, Response } from 'express';
import { PetrelError } from '@petrel/contracts';
import { checkRateLimit, rateLimitMessage, type RateLimiter } from '@petrel/core';
import { metrics } from '@petrel/observability';

export interface RateLimitDeps {
  limiter: RateLimiter;
  /** RATE_LIMIT_RPS: requests per second of a team that set none (0: none). */
  defaultRps: number;
}

export function rateLimit(deps: RateLimitDeps) {
  // the series exist from the start (at 0), so dashboards and alerts see them before a refusal
  for (const kind of ['rate', 'daily_quota']) metrics.rateLimited().inc({ kind }, 0);
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await checkRateLimit(deps.limiter, res.locals.auth.teamId, deps.defaultRps);
    if (decision.kind === 'off') return next();
    for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
    if (decision.kind === 'limited') {
      metrics.rateLimited().inc({ kind: 'rate' });
      throw new PetrelError(
        'rate_limit_exceeded',
        rateLimitMessage(decision.limit, decision.retryAfterS ?? 1),
      );
    }
    next();
  };
}

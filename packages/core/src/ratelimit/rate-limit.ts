/**
 * Per-team request rate limits, as Resend applies them: every request of a team (all of its API
 * keys, and its SMTP submissions) draws on one allowance of `limit` requests per second; over it
 * the request is refused with 429 `rate_limit_exceeded` and `retry-after`. Every response of a
 * limited team carries the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-06:
 * `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset`, and `ratelimit-policy` `10;w=1`),
 * the ones Resend's API sends.
 *
 * The allowance is a GCRA (generic cell rate algorithm, the "virtual scheduling" form of ITU-T
 * I.371's leaky bucket): one number per team, the theoretical arrival time (TAT) of the next
 * request. Each request is due `T = window / limit` after the previous one; a request is admitted
 * while it arrives no more than `window - T` ahead of its due time, so up to `limit` requests
 * may come at once and then one every `T`. The store runs that step atomically in Redis (one
 * round trip, the server's clock, shared by every API and SMTP process); this module turns its
 * answer into the decision and the header values, purely.
 */

/** Resend's limits are per second. */
export const RATE_LIMIT_WINDOW_MS = 1_000;

/** What the store's atomic step answers for one request. */
export type RateLimitAnswer =
  /** No limit applies to the team (none configured, and no default). */
  | { limit: 0 }
  | {
      /** Requests per window in force for the team. */
      limit: number;
      /** Whether the request was admitted (and counted). */
      admitted: boolean;
      /** The TAT after this request (admitted) or as it stands (refused), in ms. */
      tatMs: number;
      /** The store's clock at the step, in ms. */
      nowMs: number;
    };

export type RateLimitDecision =
  | { kind: 'off' }
  | {
      kind: 'allowed' | 'limited';
      limit: number;
      remaining: number;
      /** Seconds until the allowance is whole again. */
      resetS: number;
      /** Seconds to wait before a refused request can pass (limited only). */
      retryAfterS?: number;
      /** The response header fields, lower-case names. */
      headers: Record<string, string>;
    };

/**
 * The decision and header values for `answer`, under a window of `windowMs`.
 *
 * - remaining: how many more requests would pass right now, `floor((window - (tat - now)) / T)`,
 *   between 0 and `limit`;
 * - reset: when the allowance is whole again, `ceil((tat - now) / 1 s)` (0 when it is);
 * - retry-after (refused only): when this request would have passed, `tat + T - window`, in
 *   whole seconds rounded up and at least 1 (the header is an integer, RFC 9110 section 10.2.3).
 */
export function rateLimitDecision(
  answer: RateLimitAnswer,
  windowMs = RATE_LIMIT_WINDOW_MS,
): RateLimitDecision {
  if (!('admitted' in answer) || !(answer.limit > 0)) return { kind: 'off' };
  const { limit, admitted, tatMs, nowMs } = answer;
  const interval = windowMs / limit;
  const ahead = Math.max(0, tatMs - nowMs);
  // 1e-6: the TAT travels as a decimal string; a whole request must not vanish in rounding
  const remaining = Math.min(limit, Math.max(0, Math.floor((windowMs - ahead) / interval + 1e-6)));
  const resetS = Math.max(0, Math.ceil(ahead / 1000 - 1e-9));
  const headers: Record<string, string> = {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': String(admitted ? remaining : 0),
    'ratelimit-reset': String(resetS),
    'ratelimit-policy': `${limit};w=${Math.round(windowMs / 1000)}`,
  };
  if (admitted) return { kind: 'allowed', limit, remaining, resetS, headers };
  const waitMs = Math.max(0, ahead + interval - windowMs);
  const retryAfterS = Math.max(1, Math.ceil(waitMs / 1000 - 1e-9));
  headers['retry-after'] = String(retryAfterS);
  return { kind: 'limited', limit, remaining: 0, resetS, retryAfterS, headers };
}

/** The message of a refused request. */
export function rateLimitMessage(limit: number, retryAfterS: number): string {
  return `Too many requests: this team may make ${limit} requests per second. Retry after ${retryAfterS} s.`;
}

/**
 * The store's atomic step (packages/store implements it): count one request of `teamId` against
 * its limit — the team's own, else `defaultLimit` (0: none) — and answer with the state.
 */
export interface RateLimiter {
  take(teamId: string, defaultLimit: number): Promise<RateLimitAnswer>;
}

/** Take one request of `teamId` and decide: the one rule every entry point (HTTP, SMTP) applies. */
export async function checkRateLimit(
  limiter: RateLimiter,
  teamId: string,
  defaultLimit: number,
): Promise<RateLimitDecision> {
  return rateLimitDecision(await limiter.take(teamId, defaultLimit));
}

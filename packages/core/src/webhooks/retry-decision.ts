/**
 * What happens after one delivery attempt — a pure decision, read at a glance:
 *
 * | attempt outcome                  | event                 | endpoint                                  |
 * |----------------------------------|-----------------------|-------------------------------------------|
 * | 2xx                              | success               | healthy again (failing_since cleared)     |
 * | 410 Gone                         | failed, no more tries | disabled at once (`gone`)                 |
 * | `webhook-delivery: abort-message`| failed, no more tries | healthy (it answered, on purpose)         |
 * | refused (SSRF policy)            | failed, no more tries | failing                                   |
 * | anything else, attempts left     | retry after schedule  | failing (since the first failure)         |
 * | anything else, schedule used up  | failed                | failing                                   |
 * | any failure, failing too long    | (as above)            | disabled (`failing`)                      |
 *
 * "Anything else": a 1xx/3xx/4xx/5xx answer (a redirect is never followed, so it is a failure),
 * a timeout, a connection error. On 429 and 503 a Retry-After longer than the scheduled wait is
 * honoured (RFC 9110 §10.2.3). A receiver that answers (any status) with the response header
 * {@link ABORT_HEADER}: `abort-message` asks that this message be given up: no further attempt,
 * and the endpoint is not held to have failed.
 */

/** The response header by which a receiver gives a message up (see the table). */
export const ABORT_HEADER = 'webhook-delivery';
export const ABORT_VALUE = 'abort-message';

export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfterMs?: number; abort?: boolean }
  | { kind: 'error'; message: string }
  /** The destination is not allowed (private network): retrying cannot help. */
  | { kind: 'refused'; message: string };

export interface RetryInput {
  outcome: AttemptOutcome;
  /** 1-based number of the attempt that just ended, in the current run. */
  attempt: number;
  /** Waits before attempts 1, 2, … in ms (already time-scaled); its length is the attempt budget. */
  scheduleMs: readonly number[];
  /** When the endpoint's current run of failures began, null when it was healthy. */
  failingSinceMs: number | null;
  nowMs: number;
  disableAfterMs: number;
}

export type EndpointHealth =
  | { kind: 'healthy' }
  | { kind: 'failing'; sinceMs: number }
  | { kind: 'disable'; reason: 'gone' | 'failing'; sinceMs: number };

export type RetryDecision =
  | { event: 'success'; endpoint: EndpointHealth }
  | { event: 'retry'; delayMs: number; endpoint: EndpointHealth }
  | { event: 'failed'; endpoint: EndpointHealth };

export const isSuccess = (o: AttemptOutcome): boolean =>
  o.kind === 'response' && o.status >= 200 && o.status < 300;

export function decideAfterAttempt(input: RetryInput): RetryDecision {
  const { outcome, attempt, scheduleMs, nowMs } = input;
  if (isSuccess(outcome)) return { event: 'success', endpoint: { kind: 'healthy' } };
  if (outcome.kind === 'response' && outcome.abort) return { event: 'failed', endpoint: { kind: 'healthy' } };
  const sinceMs = input.failingSinceMs ?? nowMs;
  if (outcome.kind === 'response' && outcome.status === 410)
    return { event: 'failed', endpoint: { kind: 'disable', reason: 'gone', sinceMs } };
  const endpoint: EndpointHealth =
    nowMs - sinceMs >= input.disableAfterMs
      ? { kind: 'disable', reason: 'failing', sinceMs }
      : { kind: 'failing', sinceMs };
  if (outcome.kind === 'refused' || endpoint.kind === 'disable' || attempt >= scheduleMs.length)
    return { event: 'failed', endpoint };
  let delayMs = scheduleMs[attempt]!;
  if (
    outcome.kind === 'response' &&
    (outcome.status === 429 || outcome.status === 503) &&
    outcome.retryAfterMs
  )
    delayMs = Math.max(delayMs, outcome.retryAfterMs);
  return { event: 'retry', delayMs, endpoint };
}

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as ms from `nowMs`; undefined
 * when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** A schedule in seconds, scaled (tests compress time), as ms. */
export function scheduleMs(scheduleS: readonly number[], timeScale: number): number[] {
  return scheduleS.map((s) => Math.round(s * 1000 * timeScale));
}

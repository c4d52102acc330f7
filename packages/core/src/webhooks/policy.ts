/**
 * Webhook delivery policies as named values: the retry schedule, the limits of one attempt and
 * of what is kept, the endpoint health rule (useSend and Postal keep theirs at the top of one
 * file; so do we).
 */

/**
 * Resend's retry schedule (https://resend.com/docs/webhooks/retries-and-replays), in seconds:
 * entry n is the wait before attempt n + 1, counted from the end of attempt n (the first attempt
 * goes at once). 8 attempts over about 28 hours.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_S: readonly number[] = [
  0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000,
];

/** One deadline for a whole attempt: DNS, connect, request, response headers and body. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** Most of a response body kept with an attempt; the rest is never read. */
export const WEBHOOK_RESPONSE_MAX_BYTES = 64 * 1024;

/** An endpoint failing without a single 2xx for this long is disabled (Svix's rule: 5 days). */
export const WEBHOOK_DISABLE_AFTER_S = 5 * 24 * 3600;

/** How long the secret before a rotation keeps signing, beside the new one. */
export const WEBHOOK_SECRET_ROTATION_GRACE_S = 24 * 3600;

/** Attempts kept per (event, endpoint): the newest win. */
export const WEBHOOK_ATTEMPTS_KEPT = 50;

/** Deliveries one dispatcher process runs at once to a single endpoint. */
export const WEBHOOK_ENDPOINT_CONCURRENCY = 10;

/** Endpoints per team (bounds the fan-out of one event). */
export const WEBHOOK_MAX_ENDPOINTS_PER_TEAM = 100;

/** Longest endpoint URL accepted. */
export const WEBHOOK_ENDPOINT_MAX_CHARS = 2_048;

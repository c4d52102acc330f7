/**
 * Signing of webhook deliveries, as Standard Webhooks and Svix define it (the scheme Resend
 * delivers with, so `resend.webhooks.verify`, `standardwebhooks` and `svix` all verify it):
 *
 * - the secret is `whsec_` + base64 of the raw HMAC key (24 random bytes, as Svix draws them);
 * - the signed content is `${msgId}.${timestampSeconds}.${body}`, the body byte for byte as sent;
 * - the signature is base64(HMAC-SHA256(key, content)), sent as `v1,<signature>`; several
 *   space-separated `v1,…` entries are allowed, and during a secret rotation both secrets sign;
 * - the same three values go under the `webhook-*` (Standard Webhooks) and `svix-*` names.
 *
 * The message id is derived from the event id, so it is the same on every retry and every
 * replay of the event (Svix keeps a message's id on replays too): receivers dedupe on it.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 24 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** The raw HMAC key of a `whsec_…` secret (a bare base64 secret is accepted, as the verifiers do). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

/** The message id of an event: `msg_` + the event id without dashes. */
export function webhookMessageId(eventId: string): string {
  return `msg_${eventId.replace(/-/g, '')}`;
}

/** `v1,<base64 signature>` of `body` under `secret`. */
export function sign(secret: string, msgId: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${msgId}.${timestampS}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The signature headers of one attempt: every secret in `secrets` signs (the current one first,
 * then the one before a rotation while it is in its grace period).
 */
export function signatureHeaders(
  secrets: readonly string[],
  msgId: string,
  timestampS: number,
  body: string,
): Record<string, string> {
  const signature = secrets.map((s) => sign(s, msgId, timestampS, body)).join(' ');
  const ts = String(timestampS);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': ts,
    'webhook-signature': signature,
    'svix-id': msgId,
    'svix-timestamp': ts,
    'svix-signature': signature,
  };
}

/** The secrets that sign at `nowMs`: the current one, and the previous one until it expires. */
export function signingSecrets(
  endpoint: { secret: string; previous_secret: string | null; previous_secret_expires_ms: number | null },
  nowMs: number,
): string[] {
  const out = [endpoint.secret];
  if (endpoint.previous_secret && (endpoint.previous_secret_expires_ms ?? 0) > nowMs)
    out.push(endpoint.previous_secret);
  return out;
}

/**
 * What happens when a recipient's mail client loads the open pixel or the recipient follows a
 * tracked link: the token is checked (a tampered or expired one is a 4xx, and a click never
 * redirects without a valid one), and `email.opened` / `email.clicked` is recorded through the
 * email records — the timeline, the team's events stream for the webhook dispatcher, and
 * `last_event`, which moves forward only (EMAIL_STATUSES ranks clicked over opened over
 * delivered). Every open and click is recorded, as Resend does; repeats are cheap: the email's
 * webhook data is kept in memory for a short while, so a repeat costs one write.
 *
 * The person comes first: once the token is good they get their image or their redirect even
 * when the write fails (it is reported, not retried).
 */
import { PetrelError } from '@petrel/contracts';
import { emailEventData } from '../emails/email-event.js';
import type { Clock } from '../kernel/clock.js';
import type { EmailToDeliver, StatusEvent } from '../emails/record.js';
import type { IdSource } from '../kernel/ids.js';
import { isHttpScheme, parseUrl } from '../kernel/url.js';
import {
  verifyClickToken,
  verifyOpenToken,
  type TrackingCheck,
  type TrackingClaims,
} from './tracking-token.js';

export interface EngagementPorts {
  emails: {
    /** The record; null once it expired (retention) or never existed. */
    get(teamId: string, emailId: string): Promise<EmailToDeliver | null>;
    recordEvents(teamId: string, emailId: string, items: StatusEvent[]): Promise<unknown>;
  };
  secret: string;
  clock: Clock;
  ids: IdSource;
  /** A write that failed after the token was accepted (the person was served anyway). */
  onRecordError(err: unknown): void;
}

/** Who loaded the pixel or followed the link, as the HTTP request says. */
export interface Visit {
  ipAddress: string;
  userAgent: string;
}

/** How long an email's webhook data is reused for repeated opens and clicks, and how many are kept. */
export const ENGAGEMENT_CACHE_MS = 60_000;
export const ENGAGEMENT_CACHE_MAX = 10_000;

/**
 * Where the redirect goes: the URL exactly as signed when it is plain printable ASCII (nearly
 * always); otherwise its WHATWG serialisation — IDN host as A-labels, spaces and non-ASCII
 * percent-encoded — which is what a browser would have requested from the original link, and
 * which an HTTP header can carry. Only http(s): anything else is refused, signed or not.
 */
export function redirectTarget(url: string): string | null {
  const parsed = parseUrl(url);
  if (parsed === null || !isHttpScheme(parsed)) return null;
  return /^[\x21-\x7e]+$/.test(url) ? url : parsed.href;
}

function refuse<C>(check: Exclude<TrackingCheck<C>, { ok: true }>): never {
  if (check.reason === 'expired') throw new PetrelError('not_found', 'token: this link has expired', 410);
  throw new PetrelError('not_found', 'token: this link is not valid');
}

export interface EngagementTracker {
  /**
   * Checks an open pixel's token and records `email.opened` (Resend's carries the email's data
   * only). Throws a 4xx PetrelError for a bad token. `record: false` only checks (a HEAD request).
   */
  open(token: string, record?: boolean): Promise<TrackingClaims>;
  /** Checks a link's token, records `email.clicked` (unless `record` is false), and returns where to redirect. */
  click(token: string, visit: Visit, record?: boolean): Promise<string>;
}

export function engagementTracker(
  ports: EngagementPorts,
  cache: { ms?: number; max?: number } = {},
): EngagementTracker {
  const ttl = cache.ms ?? ENGAGEMENT_CACHE_MS;
  const max = cache.max ?? ENGAGEMENT_CACHE_MAX;
  /** Webhook data by `team:email` (null: no such record), oldest first. */
  const recent = new Map<string, { data: Record<string, unknown> | null; until: number }>();

  async function emailData(teamId: string, emailId: string): Promise<Record<string, unknown> | null> {
    const key = `${teamId}:${emailId}`;
    const now = ports.clock.now();
    const hit = recent.get(key);
    if (hit && hit.until > now) return hit.data;
    const email = await ports.emails.get(teamId, emailId);
    const data = email ? emailEventData(email) : null;
    recent.delete(key);
    recent.set(key, { data, until: now + ttl });
    if (recent.size > max) recent.delete(recent.keys().next().value!);
    return data;
  }

  async function record(
    claims: TrackingClaims,
    type: 'email.opened' | 'email.clicked',
    extra: Record<string, unknown>,
  ): Promise<void> {
    try {
      const data = await emailData(claims.teamId, claims.emailId);
      if (data === null) return; // the email's record is gone: nothing to attach the event to
      const event = {
        id: ports.ids.newEventId(),
        type,
        created_at: new Date(ports.clock.now()).toISOString(),
        teamId: claims.teamId,
        data: { ...data, ...extra },
      };
      const status = type === 'email.opened' ? 'opened' : 'clicked';
      await ports.emails.recordEvents(claims.teamId, claims.emailId, [{ status, event }]);
    } catch (err) {
      ports.onRecordError(err);
    }
  }

  return {
    async open(token, recording = true) {
      const check = verifyOpenToken(token, ports.secret, ports.clock.now());
      if (!check.ok) refuse(check);
      if (recording) await record(check.claims, 'email.opened', {});
      return check.claims;
    },
    async click(token, visit, recording = true) {
      const check = verifyClickToken(token, ports.secret, ports.clock.now());
      if (!check.ok) refuse(check);
      const target = redirectTarget(check.claims.url);
      if (target === null) throw new PetrelError('not_found', 'token: this link is not valid');
      if (!recording) return target;
      await record(check.claims, 'email.clicked', {
        click: {
          ipAddress: visit.ipAddress,
          link: check.claims.url,
          timestamp: new Date(ports.clock.now()).toISOString(),
          userAgent: visit.userAgent,
        },
      });
      return target;
    },
  };
}

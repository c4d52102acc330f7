/**
 * Automatic protection of a team's reputation: the rule that pauses a broadcast whose recipients
 * bounce or complain at a rate mailbox providers punish, and the same rule over a team's recent
 * transactional mail (which only alerts: infra/ holds its Prometheus rule).
 *
 * The defaults follow the providers' published guidance: Google's sender guidelines
 * (https://support.google.com/a/answer/81126) ask bulk senders to keep the spam (complaint) rate
 * reported in Postmaster Tools below 0.3 %; Amazon SES reviews an account whose bounce rate
 * reaches 5 % and whose complaint rate reaches 0.1 %
 * (https://docs.aws.amazon.com/ses/latest/dg/faqs-enforcement.html). Only hard (Permanent)
 * bounces count: a soft bounce says nothing about the list's quality (it is retried, and an
 * address that soft-bounces email after email is suppressed by its own rule).
 *
 * A rate over a handful of emails is noise (two complaints out of ten is 20 %), so nothing is
 * judged before `minSample` emails have been sent. Core only: the counts are read from counters
 * written with the events (never by scanning the emails).
 */

import type { BroadcastProtectionPort, ProtectionCounts } from './ports.js';

export type { ProtectionCounts } from './ports.js';

export interface ProtectionThresholds {
  /** Complaints / sent above which the broadcast pauses (0.003 = 0.3 %). */
  complaintRate: number;
  /** Hard bounces / sent above which the broadcast pauses (0.05 = 5 %). */
  hardBounceRate: number;
  /** Sent emails before either rate is judged. */
  minSample: number;
}

/** The documented defaults (docs/operations.md, "Broadcast protection"). */
export const DEFAULT_PROTECTION_THRESHOLDS: ProtectionThresholds = {
  complaintRate: 0.003,
  hardBounceRate: 0.05,
  minSample: 500,
};

/**
 * A team's own thresholds, set with the CLI (`petrel team limits --complaint-rate …`): each a
 * value of the team's, or null where the deployment's (BROADCAST_PROTECTION_*) applies.
 */
export interface TeamProtectionThresholds {
  complaintRate: number | null;
  hardBounceRate: number | null;
  minSample: number | null;
}

/** Where a team's own thresholds are kept (on the team's record). */
export interface TeamProtectionThresholdsReader {
  protectionThresholds(teamId: string): Promise<TeamProtectionThresholds>;
}

/** The thresholds in force for a team: each of its own, else the deployment's. */
export function thresholdsInForce(
  own: TeamProtectionThresholds,
  deployment: ProtectionThresholds,
): ProtectionThresholds {
  return {
    complaintRate: own.complaintRate ?? deployment.complaintRate,
    hardBounceRate: own.hardBounceRate ?? deployment.hardBounceRate,
    minSample: own.minSample ?? deployment.minSample,
  };
}

/** Why a broadcast was paused: the broadcast's `paused_reason` and the event's `reason`. */
export type ProtectionReason = 'complaint_rate' | 'hard_bounce_rate';

export interface ProtectionBreach {
  reason: ProtectionReason;
  /** The measured rate (0..1). */
  rate: number;
  /** The threshold it went over. */
  threshold: number;
  /** The sample it was measured on (sent emails). */
  sent: number;
}

/**
 * Whether the counts breach a threshold: null while under `minSample` sent or within both rates.
 * A complaint breach is reported first: complaints hurt more (providers weigh them heavier and
 * set their limit lower).
 */
export function protectionBreach(
  counts: ProtectionCounts,
  thresholds: ProtectionThresholds,
): ProtectionBreach | null {
  const { sent } = counts;
  if (sent <= 0 || sent < thresholds.minSample) return null;
  const complaintRate = counts.complained / sent;
  if (complaintRate > thresholds.complaintRate) {
    return { reason: 'complaint_rate', rate: complaintRate, threshold: thresholds.complaintRate, sent };
  }
  const bounceRate = counts.hardBounced / sent;
  if (bounceRate > thresholds.hardBounceRate) {
    return { reason: 'hard_bounce_rate', rate: bounceRate, threshold: thresholds.hardBounceRate, sent };
  }
  return null;
}

/** The human sentence a paused broadcast carries (`paused_reason`'s detail, the log line). */
export function describeBreach(b: ProtectionBreach): string {
  const what = b.reason === 'complaint_rate' ? 'complaint rate' : 'hard-bounce rate';
  const pct = (x: number): string => `${(x * 100).toFixed(2).replace(/\.?0+$/, '')} %`;
  return `${what} ${pct(b.rate)} over ${b.sent} sent emails exceeds the team's threshold of ${pct(b.threshold)}`;
}

/** How long a paused broadcast's email waits before it looks at the broadcast again. */
export const DEFAULT_BROADCAST_HOLD_RECHECK_MS = 60_000;

/** The protection settings the send path runs with. */
export interface BroadcastProtectionSettings {
  /** The deployment's thresholds (BROADCAST_PROTECTION_*), for a team without its own. */
  thresholds: ProtectionThresholds;
  /**
   * Each team's own thresholds, read when the rule runs (after a broadcast email's hard bounce
   * or complaint, never per email); absent: every team runs on `thresholds`.
   */
  teams?: TeamProtectionThresholdsReader;
  /** A held email's wait before it reads the broadcast's status again (the resume latency). */
  holdRecheckMs: number;
}

export const DEFAULT_BROADCAST_PROTECTION: BroadcastProtectionSettings = {
  thresholds: DEFAULT_PROTECTION_THRESHOLDS,
  holdRecheckMs: DEFAULT_BROADCAST_HOLD_RECHECK_MS,
};

/** Whether recorded events can raise a rate: a hard bounce or a complaint (a send only lowers them). */
export function raisesProtectionRate(
  events: readonly { status: string; data?: Record<string, unknown> }[],
): boolean {
  return events.some((e) => {
    if (e.status === 'complained') return true;
    if (e.status !== 'bounced') return false;
    const bounce = e.data?.bounce as { type?: unknown } | undefined;
    return bounce?.type === 'Permanent';
  });
}

/** A broadcast the rule paused (for the log line, the metric and the team's event). */
export interface BroadcastPaused {
  teamId: string;
  broadcastId: string;
  breach: ProtectionBreach;
  reason: string;
}

/**
 * Reads the broadcast's counters and pauses it when they breach the thresholds. Null when
 * nothing was paused now (within the thresholds, or already paused, canceled or gone: the
 * compare-and-set lets only one of the racing workers pause it, and only that one reports it).
 */
export async function checkBroadcastProtection(
  broadcasts: BroadcastProtectionPort,
  teamId: string,
  broadcastId: string,
  thresholds: ProtectionThresholds,
): Promise<BroadcastPaused | null> {
  const breach = protectionBreach(await broadcasts.protectionCounts(teamId, broadcastId), thresholds);
  if (!breach) return null;
  const reason = describeBreach(breach);
  const res = await broadcasts.pause(teamId, broadcastId, reason);
  return res.ok ? { teamId, broadcastId, breach, reason } : null;
}

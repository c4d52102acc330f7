/**
 * The ports of core's deliver-email use-case over this process's runtime: the email records and
 * their outcomes, templates, the recipients' states, the links the email carries (unsubscribe,
 * open/click tracking, signed with the deployment's links key), DKIM signing with the from-domain's
 * keys. The SMTP sender and the observer are the lane's (send-lanes.ts).
 */
import {
  DEFAULT_BROADCAST_PROTECTION,
  newId,
  systemClock,
  trackingLinks,
  unsubscribeLinks,
  type BroadcastProtectionSettings,
  type DeliverDeps,
  type TeamProtectionThresholdsReader,
} from '@petrel/core';
import { publicUrl } from '@petrel/config';
import { createDkimSigner } from '@petrel/mailer';
import { log } from '@petrel/observability';
import type { Runtime } from '@petrel/runtime';
import type { WorkerConfig } from './config.js';
import { mimeBuilderFor } from './mime-builder.js';
import { batchedOutcomes, batchedRecords } from './outcome-batches.js';
import { outcomeWriter } from './outcome-writer.js';

export type LaneIndependentDeliverDeps = Omit<DeliverDeps, 'smtp' | 'observer'>;

export async function deliveryPorts(
  config: WorkerConfig,
  rt: Runtime,
  /** The retry ladder's length. */
  retries: number,
): Promise<LaneIndependentDeliverDeps> {
  if (!config.PUBLIC_URL) {
    log().warn(
      { publicUrl: publicUrl(config) },
      'PUBLIC_URL is unset: unsubscribe links in emails point to the API on localhost',
    );
  }
  const s = rt.stores;
  // open/click links are signed with the unsubscribe links' key (tokens of each kind never pass
  // for the other)
  const links = {
    secret: await rt.secret('unsubscribe'),
    publicUrl: publicUrl(config),
    clock: Date,
  };
  return {
    // the records of a team's emails that start together are read in one script call, and the
    // outcomes of those that finish together written in one (outcome-batches.ts)
    emails: batchedRecords(s.emails),
    outcomes: outcomeWriter(batchedOutcomes(s.emails)),
    templates: s.templates,
    mime: mimeBuilderFor(config.BOUNCE_DOMAIN),
    clock: systemClock,
    ids: { newEventId: () => newId() },
    retries,
    // resend.dev test addresses are always simulated; SIMULATOR_DOMAIN adds the operator's own
    simulatorDomain: config.SIMULATOR_DOMAIN,
    recipients: s.recipientStates,
    suppressions: s.suppressions,
    unsubscribe: unsubscribeLinks(links),
    // read only for broadcast emails: a plain send makes no extra round trip
    broadcasts: s.broadcasts,
    // the deployment's thresholds, and each team's own (`petrel team limits`) read when the rule runs
    protection: broadcastProtection(config, s.limits),
    // SOFT_BOUNCE_SUPPRESS_EMAILS=0: the stage reads and writes no streak
    softBounces: {
      settings: { emails: config.SOFT_BOUNCE_SUPPRESS_EMAILS, days: config.SOFT_BOUNCE_SUPPRESS_DAYS },
      streaks: s.softBounces,
    },
    contacts: s.contacts,
    contactProperties: s.contactProperties,
    // the team's tracking switches cached a few seconds (read for every email)
    tracking: { settings: s.teamSettings, links: trackingLinks(links) },
    // DKIM: the from-domain's keys decrypted once per process (cached 30 s), signed in-process
    domains: s.domains,
    signer: createDkimSigner(),
  };
}

/**
 * BROADCAST_PROTECTION_* and BROADCAST_HOLD_RECHECK_MS over core's documented defaults; each
 * team's own thresholds (set with `petrel team limits`) over those.
 */
function broadcastProtection(
  config: WorkerConfig,
  teams: TeamProtectionThresholdsReader,
): BroadcastProtectionSettings {
  const { thresholds, holdRecheckMs } = DEFAULT_BROADCAST_PROTECTION;
  return {
    thresholds: {
      complaintRate: config.BROADCAST_PROTECTION_COMPLAINT_RATE ?? thresholds.complaintRate,
      hardBounceRate: config.BROADCAST_PROTECTION_HARD_BOUNCE_RATE ?? thresholds.hardBounceRate,
      minSample: config.BROADCAST_PROTECTION_MIN_SAMPLE ?? thresholds.minSample,
    },
    holdRecheckMs: config.BROADCAST_HOLD_RECHECK_MS ?? holdRecheckMs,
    teams,
  };
}

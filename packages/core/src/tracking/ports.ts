/**
 * The ports of open and click tracking: the team's switches (read by the delivery at send time)
 * and the links it writes into the html.
 */
import type { TrackingLinks } from './tracking-token.js';

/** A team's tracking switches (Resend's per-domain `open_tracking` / `click_tracking`); both off by default. */
export interface TrackingSettings {
  open: boolean;
  click: boolean;
}

export const TRACKING_OFF: Readonly<TrackingSettings> = Object.freeze({ open: false, click: false });

export interface TrackingSettingsReader {
  /** The team's switches; a cached answer a few seconds old is fine (the send path asks per email). */
  get(teamId: string): Promise<TrackingSettings>;
}

/** What the delivery's `track` stage needs. */
export interface TrackingPorts {
  settings: TrackingSettingsReader;
  links: TrackingLinks;
}

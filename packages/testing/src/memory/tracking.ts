/**
 * In-memory tracking ports for the deliver-email use-case: per-team switches set by the test
 * (both off by default, as in production) and real signed links under a test public URL, so a
 * test can open the tokens the html carries.
 */
import {
  TRACKING_OFF,
  trackingLinks,
  type Clock,
  type TrackingPorts,
  type TrackingSettings,
  type TrackingSettingsReader,
} from '@petrel/core';

export const TEST_TRACKING_SECRET = 'test-tracking-secret';
export const TEST_PUBLIC_URL = 'https://petrel.test';

export class MemoryTrackingSettings implements TrackingSettingsReader {
  private readonly byTeam = new Map<string, TrackingSettings>();
  /** How many times the delivery asked (the worker caches: one ask per email here). */
  reads = 0;

  set(teamId: string, settings: Partial<TrackingSettings>): this {
    this.byTeam.set(teamId, { ...(this.byTeam.get(teamId) ?? TRACKING_OFF), ...settings });
    return this;
  }

  async get(teamId: string): Promise<TrackingSettings> {
    this.reads++;
    return this.byTeam.get(teamId) ?? TRACKING_OFF;
  }
}

export function memoryTracking(clock: Clock): TrackingPorts & { settings: MemoryTrackingSettings } {
  return {
    settings: new MemoryTrackingSettings(),
    links: trackingLinks({
      secret: TEST_TRACKING_SECRET,
      publicUrl: TEST_PUBLIC_URL,
      clock,
    }),
  };
}

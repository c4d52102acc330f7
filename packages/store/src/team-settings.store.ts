/**
 * A team's settings kept on its record (`pt:{team}:team`, next to id, name and created_at):
 * today the open and click tracking switches (`open_tracking`, `click_tracking`: 'true' or
 * 'false'; absent = off, Resend's default). Changed by the CLI, read by the workers on every
 * email's send path — through a short cache, so a send costs no round trip for them and a change
 * takes effect within `cacheMs` everywhere.
 */
import { LRUCache } from 'lru-cache';
import { TRACKING_OFF, type TrackingSettings, type TrackingSettingsReader } from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { defineScripts, type StoreCommands } from './scripts.js';

/** How long a worker reuses a team's switches. */
export const TEAM_SETTINGS_CACHE_MS = 5_000;

const FIELDS = { open: 'open_tracking', click: 'click_tracking' } as const;

export class TeamSettingsStore implements TrackingSettingsReader {
  private readonly redis: RedisClient & StoreCommands;
  private readonly cache: LRUCache<string, TrackingSettings> | null;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    opts: { cacheMs?: number } = {},
  ) {
    this.redis = defineScripts(redis);
    const ttl = opts.cacheMs ?? TEAM_SETTINGS_CACHE_MS;
    this.cache = ttl > 0 ? new LRUCache({ max: 10_000, ttl }) : null;
  }

  /** The team's tracking switches (cached); off for a team that set none, or does not exist. */
  async get(teamId: string): Promise<TrackingSettings> {
    const hit = this.cache?.get(teamId);
    if (hit) return hit;
    const [open, click] = await this.redis.hmget(this.keys.team(teamId), FIELDS.open, FIELDS.click);
    const settings =
      open === 'true' || click === 'true' ? { open: open === 'true', click: click === 'true' } : TRACKING_OFF;
    this.cache?.set(teamId, settings);
    return settings;
  }

  /**
   * Changes the switches given (the others stay) and returns them all, read afresh; null when
   * the team does not exist (nothing is written then).
   */
  async setTracking(teamId: string, change: Partial<TrackingSettings>): Promise<TrackingSettings | null> {
    const pairs: string[] = [];
    for (const k of ['open', 'click'] as const) {
      if (change[k] !== undefined) pairs.push(FIELDS[k], String(change[k]));
    }
    const key = this.keys.team(teamId);
    if (pairs.length > 0 && (await this.redis.petrelSetFieldsIfExists(key, ...pairs)) === 0) return null;
    if (pairs.length === 0 && (await this.redis.exists(key)) === 0) return null;
    this.cache?.delete(teamId);
    return this.get(teamId);
  }
}

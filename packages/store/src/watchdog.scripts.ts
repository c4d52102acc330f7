/**
 * The Lua script of the stuck-email watchdog (watchdog.store.ts), merged into the one registry
 * of scripts.ts (same naming, same slot check on every call).
 */
export const WATCHDOG_SCRIPTS = {
  /**
   * KEYS[1] an email record. ARGV: now (ms). Marks the email re-enqueued by the watchdog
   * (`watchdog_requeued_ms`) unless it is already: the once rule, atomic across schedulers.
   * Returns 1 when this call set the mark, 0 when it was set, -1 when the record is gone (no
   * stray one-field hash is left without a TTL).
   */
  petrelMarkEmailRequeued: {
    numberOfKeys: 1,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'watchdog_requeued_ms', ARGV[1])
`,
  },
} as const;

/** The scripts as commands of a connection, with their replies. */
export interface WatchdogStoreCommands {
  petrelMarkEmailRequeued(record: string, nowMs: number): Promise<number>;
}

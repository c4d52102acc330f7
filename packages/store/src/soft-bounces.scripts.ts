/**
 * The command (a file of `lua/`) of the soft-bounce streaks (soft-bounces.store.ts), loaded by the
 * one registry of scripts.ts (same naming, same slot check on every call).
 */
/** The scripts as commands of a connection, with their replies. */
export interface SoftBounceStoreCommands {
  petrelRecordSoftBounce(
    streak: string,
    emailId: string,
    nowMs: number,
    ttlMs: number,
  ): Promise<[number, number]>;
}

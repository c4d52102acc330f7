/**
 * The command (a file of `lua/`) of the stuck-email watchdog (watchdog.store.ts), loaded by the one
 * registry of scripts.ts (same naming, same slot check on every call).
 */
/** The scripts as commands of a connection, with their replies. */
export interface WatchdogStoreCommands {
  petrelMarkEmailRequeued(record: string, nowMs: number): Promise<number>;
}

/**
 * The commands of the request log (request-logs.store.ts) and of the usage counters
 * (usage.store.ts): `lua/petrelAppendRequestLogs-2.lua` and `lua/petrelCountUsage-2.lua`,
 * registered by scripts.ts with the others (same naming, same slot check on every call). Every
 * key is the team's: one slot.
 */
type Arg = string | number;

/** The scripts as commands of a connection, with their replies. */
export interface RequestLogStoreCommands {
  petrelAppendRequestLogs(summaries: string, bodies: string, ...argv: Arg[]): Promise<string[]>;
  petrelCountUsage(day: string, month: string, ...argv: Arg[]): Promise<number>;
}
